// scripts/build-image-tree.sh, the image's /app made without Docker: it holds only what the
// Dockerfile's runtime stage copies (no sources, tests or devDependencies), the Temporal SDK's
// bridge with one platform's native module (this machine's; the image's is linux x64 glibc), and
// its entry point runs from it. Its size is printed and held under a bound: a platform's bridge
// build coming back adds 25 to 30 MB, and fails it.
import { spawn } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runNode, type Run } from './run-node.js';

/** 216.1 MB of files at the time of writing (linux x64): the bound leaves 19 MB for dependencies to grow. */
const MAX_TREE_BYTES = 235_000_000;
/** tsc, two webpack bundles and `npm ci` on a busy two-core machine. */
const BUILD_TIMEOUT = 600_000;

function runScript(script: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(REPO, script), ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every file under `dir` (symbolic links as links), relative to it, with its size. */
function walk(dir: string, prefix = ''): { file: string; bytes: number }[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory()) return walk(dir, relative);
    return [{ file: relative, bytes: lstatSync(path.join(dir, relative)).size }];
  });
}

/** The name of the package a node_modules path belongs to (the innermost one). */
function packageOf(file: string): string {
  const parts = file.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  const name = parts[at + 1] ?? '';
  return name.startsWith('@') ? `${name}/${parts[at + 2]}` : name;
}

let work: string;
let tree: string;
let build: Run;
let files: { file: string; bytes: number }[];

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'image-tree-test-'));
  tree = path.join(work, 'app');
  build = await runScript('scripts/build-image-tree.sh', [tree]);
  if (build.code === 0) files = walk(tree);
}, BUILD_TIMEOUT);
afterAll(() => rm(work, { recursive: true, force: true }));

describe('scripts/build-image-tree.sh', () => {
  it("holds exactly the runtime stage's node_modules, dist/, bin/ and package.json: no sources, tests or lock file", () => {
    expect(build.code, `${build.stdout}${build.stderr}`).toBe(0);
    expect(readdirSync(tree).sort()).toEqual(['bin', 'dist', 'node_modules', 'package.json']);
    const ours = files.filter((f) => !f.file.startsWith(`node_modules${path.sep}`));
    expect(ours.filter((f) => f.file.endsWith('.ts') && !f.file.endsWith('.d.ts'))).toEqual([]);
    expect(ours.map((f) => f.file)).toContain(path.join('dist', 'cli', 'cli.js'));
    for (const bundle of ['workflow-bundle.js', 'workflow-bundle-tracing.js'])
      expect(ours.map((f) => f.file)).toContain(path.join('dist', bundle));
  });

  it('installs no package the lock file marks as needed by devDependencies only, at any depth', () => {
    const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(([where, entry]) => where !== '' && entry.dev === true)
      .map(([where]) => where);
    for (const name of ['tsx', 'typescript', 'vitest', 'fast-check', '@temporalio/testing'])
      expect(devOnly).toContain(`node_modules/${name}`);
    const installed = new Set(
      files.map((f) => f.file.split(path.sep).join('/')).filter((f) => f.endsWith('/package.json')).map((f) => f.slice(0, -'/package.json'.length)),
    );
    expect(installed.size).toBeGreaterThan(100);
    expect(devOnly.filter((where) => installed.has(where))).toEqual([]);
  });

  it("keeps one platform's native modules only: the bridge's for this machine, and none of another's", () => {
    const native = files.filter((f) => f.file.endsWith('.node')).map((f) => f.file);
    const releases = path.join('node_modules', '@temporalio', 'core-bridge', 'releases');
    const bridge = native.filter((f) => f.startsWith(releases));
    // The image is built for linux/amd64; this machine is its platform too.
    expect(bridge).toEqual([path.join(releases, 'x86_64-unknown-linux-gnu', 'index.node')]);
    for (const file of native) expect(file).toMatch(/linux-x64-gnu|x86_64-unknown-linux-gnu/);
    // Nor the Rust sources the bridge is built from.
    expect(files.filter((f) => f.file.includes(`core-bridge${path.sep}sdk-core${path.sep}`))).toEqual([]);
  });

  it('runs its entry point from the tree: `dispatch-kubeflow --help` through bin/ and dist/', async () => {
    const help = await runNode([path.join(tree, 'bin', 'dispatch-kubeflow.js'), '--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Start Kubeflow Trainer TrainJobs');
    expect(help.stdout).toMatch(/^ {2}worker /m);
  });

  it(`is at most ${MAX_TREE_BYTES / 1e6} MB`, () => {
    const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
    const byPackage = new Map<string, number>();
    for (const f of files.filter((x) => x.file.startsWith('node_modules')))
      byPackage.set(packageOf(f.file), (byPackage.get(packageOf(f.file)) ?? 0) + f.bytes);
    const largest = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 5);
    console.log(
      `image tree: ${(bytes / 1e6).toFixed(1)} MB in ${files.length} files; largest packages: ${largest
        .map(([name, size]) => `${name} ${(size / 1e6).toFixed(1)} MB`)
        .join(', ')}`,
    );
    expect(bytes).toBeLessThanOrEqual(MAX_TREE_BYTES);
  });
});
