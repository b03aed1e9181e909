// The Helm chart (deploy/helm/dispatch-kubeflow) through the real helm, which scripts/build-servers.sh
// builds from the Go module proxy like the servers: `helm lint` and the objects `helm template`
// renders, read as test/unit/deploy/manifests.ts reads the kustomizations'.
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO, type Manifest } from '../../unit/deploy/manifests.js';

export const CHART_DIR = join(REPO, 'deploy', 'helm', 'dispatch-kubeflow');

export interface HelmRun {
  code: number;
  stdout: string;
  stderr: string;
}

let helmPath: Promise<string> | undefined;

/** The cached helm binary; building it (a cold build takes minutes) is scripts/build-servers.sh's job. */
export function helmBinary(): Promise<string> {
  helmPath ??= new Promise((resolve, reject) => {
    // --print exits 1 while anything is missing, but still prints what is there.
    const child = spawn('bash', [join(REPO, 'scripts', 'build-servers.sh'), '--print'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.once('error', reject);
    child.once('close', () => {
      const line = stdout.split('\n').find((l) => l.startsWith('helm='));
      if (line) resolve(line.slice('helm='.length).trim());
      else
        reject(
          new Error('helm is not built: run `bash scripts/build-servers.sh` (builds once, then cached)'),
        );
    });
  });
  return helmPath;
}

/** Runs helm with a home of its own (no repositories, plugins or registry logins of the machine's). */
export async function helm(args: string[]): Promise<HelmRun> {
  const binary = await helmBinary();
  const home = mkdtempSync(join(tmpdir(), 'dispatch-kubeflow-helm-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
  };
  try {
    return await new Promise((resolve, reject) => {
      execFile(binary, args, { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (error && code === -1) reject(error);
        else resolve({ code, stdout, stderr });
      });
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Values as a file helm reads with -f (JSON is YAML). */
function valuesFile(values: object): { path: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'dispatch-kubeflow-values-'));
  const path = join(dir, 'values.yaml');
  writeFileSync(path, JSON.stringify(values));
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `helm lint --strict` of the chart with these values over its defaults. */
export async function lintChart(values: object = {}, chart = CHART_DIR): Promise<HelmRun> {
  const file = valuesFile(values);
  try {
    return await helm(['lint', '--strict', chart, '-f', file.path]);
  } finally {
    file.dispose();
  }
}

export interface RenderOptions {
  /** The release's namespace (`helm template -n`). */
  namespace: string;
  values?: object;
  release?: string;
  chart?: string;
}

/** Every object `helm template` renders, with the template it came from as its `source`. */
export async function renderChart(options: RenderOptions): Promise<Manifest[]> {
  const file = valuesFile(options.values ?? {});
  try {
    const release = options.release ?? 'dispatch-kubeflow';
    const run = await helm([
      'template',
      release,
      options.chart ?? CHART_DIR,
      '-n',
      options.namespace,
      '-f',
      file.path,
    ]);
    if (run.code !== 0) throw new Error(`helm template failed (exit ${run.code}): ${run.stderr}`);
    return parseRendered(run.stdout);
  } finally {
    file.dispose();
  }
}

/** The objects of `helm template`'s output, each with the `# Source:` line before it. */
export function parseRendered(text: string): Manifest[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`helm template's output: ${doc.errors[0]!.message}`);
    const object = doc.toJS() as Manifest | null;
    if (object === null) return [];
    // The `# Source: <chart>/templates/<file>` line, before the document or before its first key.
    const comments = `${doc.commentBefore ?? ''}\n${doc.contents?.commentBefore ?? ''}`;
    const source = /^ ?Source: (\S+)/m.exec(comments)?.[1] ?? 'helm template';
    return [{ ...object, source }];
  });
}

/**
 * A copy of the chart, in a temporary folder, with `files` written into it (relative paths; a null
 * content deletes the file): to render it with and without the files another part of the project
 * adds (the dashboard and the alerts), or broken on purpose.
 */
export function chartCopy(files: Record<string, string | null>): { dir: string; dispose(): void } {
  const root = mkdtempSync(join(tmpdir(), 'dispatch-kubeflow-chart-'));
  const dir = join(root, 'dispatch-kubeflow');
  cpSync(CHART_DIR, dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    if (content === null) rmSync(join(dir, path), { force: true });
    else writeFileSync(join(dir, path), content);
  }
  return { dir, dispose: () => rmSync(root, { recursive: true, force: true }) };
}
