// The Dockerfile, checked without a Docker engine: pinned base image, what each stage copies exists
// and is in the build context (.dockerignore), the runtime stage runs the CLI's `worker` as a
// non-root user with the prebuilt workflow bundle, and it agrees with the Kubernetes Deployment and
// docker-compose.yml (user, config path, metrics port).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  interceptorModules,
  TRACING_WORKFLOW_BUNDLE,
  WORKFLOW_BUNDLE,
} from '../../../scripts/build-workflow-bundle.js';
import { readCompose } from './compose.js';
import { KUBERNETES_DIR, kustomize, one, REPO } from './manifests.js';
import { WORKER_HEAP_LIMIT_MB, WORKER_NODE_OPTIONS } from '../../../src/worker/heap.js';

interface Instruction {
  keyword: string;
  args: string;
}

/** The instructions, with continuation lines joined and comments and parser directives dropped. */
function instructions(text: string): Instruction[] {
  const lines = text.split('\n').filter((line) => !line.trimStart().startsWith('#'));
  return lines
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

interface Stage {
  from: string;
  name?: string;
  body: Instruction[];
}

function stages(all: Instruction[]): { args: Map<string, string>; stages: Stage[] } {
  const args = new Map<string, string>();
  const result: Stage[] = [];
  for (const instruction of all) {
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = instruction.args.split(/\s+/);
      result.push({ from: image, ...(as?.toUpperCase() === 'AS' && name ? { name } : {}), body: [] });
    } else if (result.length === 0 && instruction.keyword === 'ARG') {
      const [key = '', value = ''] = instruction.args.split('=');
      args.set(key, value);
    } else result.at(-1)?.body.push(instruction);
  }
  return { args, stages: result };
}

/** Whether .dockerignore leaves `path` in the build context (its patterns in order; the last match wins). */
function inContext(path: string, patterns: string[]): boolean {
  let included = true;
  for (const line of patterns) {
    const negated = line.startsWith('!');
    const pattern = (negated ? line.slice(1) : line).replace(/\/$/, '');
    if (/[?[\]]|\*./.test(pattern) || (pattern.includes('*') && pattern !== '*'))
      throw new Error(`.dockerignore pattern ${line}: not understood by this check`);
    if (pattern === '*' || path === pattern || path.startsWith(`${pattern}/`)) included = negated;
  }
  return included;
}

const dockerfile = stages(instructions(readFileSync(join(REPO, 'Dockerfile'), 'utf8')));
const ignore = readFileSync(join(REPO, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const runtime = dockerfile.stages.at(-1)!;
const last = (keyword: string) => runtime.body.filter((i) => i.keyword === keyword).at(-1)?.args;
const exec = (keyword: string) => JSON.parse(last(keyword) ?? 'null') as string[];
/** ENV's `KEY=value` pairs; a value may be double-quoted to hold spaces. */
const env = new Map(
  runtime.body
    .filter((i) => i.keyword === 'ENV')
    .flatMap((i) => [...i.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|(\S+))/g)])
    .map((m) => [m[1]!, m[2] ?? m[3]!] as [string, string]),
);
const deployment = one<V1Deployment>(kustomize(KUBERNETES_DIR), 'Deployment');
const pod = deployment.spec!.template.spec!;

describe('Dockerfile', () => {
  it('builds every stage from one Node 24 image pinned by tag and digest, the release .node-version names and engines starts at', () => {
    const base = dockerfile.args.get('NODE_IMAGE') ?? '';
    const pinned = /^node:(\d+)\.(\d+)\.(\d+)-bookworm-slim@sha256:[0-9a-f]{64}$/.exec(base);
    expect(pinned, base).not.toBeNull();
    expect(dockerfile.stages.map((s) => s.from)).toEqual(['${NODE_IMAGE}', '${NODE_IMAGE}', '${NODE_IMAGE}']);
    const [, major, minor, patch] = pinned!;
    expect(major).toBe('24');
    // The tests run on this release (scripts/test.sh puts scripts/ensure-node.sh's Node first on PATH).
    expect(readFileSync(join(REPO, '.node-version'), 'utf8').trim()).toBe(`${major}.${minor}.${patch}`);
    const engines = (
      JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } }
    ).engines.node;
    expect(engines).toBe(`>=${major}.${minor}`);
  });

  it('builds with all dependencies, then the TypeScript and the workflow bundle through npm scripts that exist', () => {
    const build = dockerfile.stages[0]!;
    const run = build.body.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(run).toEqual(['npm ci --no-audit --no-fund', 'npm run build && npm run build:bundle']);
    const scripts = (
      JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.build).toBe('tsc -p tsconfig.build.json');
    expect(scripts['build:bundle']).toBe('tsx scripts/build-workflow-bundle.ts');
    const deps = dockerfile.stages[1]!.body.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(deps).toEqual([
      'npm ci --omit=dev --no-audit --no-fund && npm cache clean --force && node scripts/image/prune-node-modules.mjs node_modules',
    ]);
  });

  it('copies from the build context only what exists and .dockerignore lets in', () => {
    const sources = dockerfile.stages.flatMap((stage) =>
      stage.body
        .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))
        .flatMap((i) => i.args.split(/\s+/).slice(0, -1)),
    );
    expect(sources.length).toBeGreaterThan(5);
    for (const source of sources) {
      expect(existsSync(join(REPO, source)), `${source} does not exist`).toBe(true);
      expect(inContext(source, ignore), `${source} is excluded by .dockerignore`).toBe(true);
    }
    // What only the tests and the dev stack need stays out of the context.
    for (const path of ['node_modules', 'dist', '.git', 'test', '.dev', 'docs'])
      expect(inContext(path, ignore), path).toBe(false);
  });

  it('ships only production dependencies, the compiled code, the bin script and package.json', () => {
    const copies = runtime.body.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).toEqual([
      '--from=deps /app/node_modules ./node_modules',
      '--from=build /app/dist ./dist',
      'package.json ./',
      'bin ./bin',
    ]);
  });

  it('runs the worker with the prebuilt workflow bundle, which is where build:bundle writes it', () => {
    expect(env.get('DISPATCH_WORKFLOW_BUNDLE')).toBe(`/app/${WORKFLOW_BUNDLE}`);
    // Both bundles are in dist/, which the runtime stage copies whole.
    for (const bundle of [WORKFLOW_BUNDLE, TRACING_WORKFLOW_BUNDLE])
      expect(bundle.startsWith('dist/')).toBe(true);
    expect(env.get('NODE_ENV')).toBe('production');
  });

  it("bundles dispatch's metrics interceptor into both bundles, and OpenTelemetry's into the tracing one", async () => {
    const plain = await interceptorModules(false);
    const tracing = await interceptorModules(true);
    expect(plain).toEqual([expect.stringMatching(/src\/observability\/workflow\/interceptors\.ts$/)]);
    expect(tracing).toEqual([
      ...plain,
      expect.stringMatching(/interceptors-opentelemetry\/lib\/workflow-interceptors\.js$/),
    ]);
    for (const module of tracing) expect(existsSync(module), module).toBe(true);
  });

  it("starts the CLI through bin/dispatch-kubeflow.js, which runs the build's dist/cli/cli.js", () => {
    expect(exec('ENTRYPOINT')).toEqual(['node', 'bin/dispatch-kubeflow.js']);
    expect(readFileSync(join(REPO, 'bin/dispatch-kubeflow.js'), 'utf8')).toContain(
      "new URL('../dist/cli/cli.js', import.meta.url)",
    );
    const build = JSON.parse(readFileSync(join(REPO, 'tsconfig.build.json'), 'utf8')) as {
      compilerOptions: { rootDir: string; outDir: string };
    };
    expect(build.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    expect(existsSync(join(REPO, 'src/cli/cli.ts'))).toBe(true);
  });

  it('runs `worker` by default, with the config path the Deployment and docker-compose.yml mount', () => {
    const config = '--config=/etc/dispatch-kubeflow/config.yaml';
    expect(exec('CMD')).toEqual(['worker', config]);
    expect(pod.containers[0]!.args).toContain(config);
    expect(readCompose().services.worker!.command).toContain(config);
  });

  it("caps the worker's heap as src/worker/heap.ts says, in the image and in the Deployment alike", () => {
    expect(env.get('NODE_OPTIONS')).toBe(WORKER_NODE_OPTIONS);
    const worker = pod.containers.find((c) => c.name === 'worker')!;
    expect(worker.env?.find((e) => e.name === 'NODE_OPTIONS')?.value).toBe(WORKER_NODE_OPTIONS);
    // Two isolates (the main thread and the workflow thread) each up to the cap, and native memory, fit the limit.
    expect(worker.resources?.limits?.memory).toBe('1Gi');
    expect(2 * WORKER_HEAP_LIMIT_MB).toBeLessThan(1024 / 2);
  });

  it("runs as the base image's unprivileged node user, by number, the same the Deployment and compose use", () => {
    expect(last('USER')).toBe('1000:1000');
    expect(pod.securityContext).toMatchObject({ runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true });
    expect(readCompose().services.worker!.user).toBe('${DISPATCH_UID:-1000}:${DISPATCH_GID:-1000}');
  });

  it("exposes the worker's two metrics ports (the Temporal SDK's and dispatch's) and its health port", () => {
    expect(last('EXPOSE')).toBe('9464 9465 8081');
  });
});
