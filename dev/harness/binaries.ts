// The real server binaries, built from the Go module proxy by scripts/build-servers.sh and cached
// outside the work tree. The script is the single place that knows versions and cache paths.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

export interface ServerBinaries {
  etcd: string;
  temporal: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  kwok: string;
  jobset: string;
  trainer: string;
  kueue: string;
}

const TOOLS: Record<string, keyof ServerBinaries> = {
  etcd: 'etcd',
  temporal: 'temporal',
  'kube-apiserver': 'kubeApiserver',
  'kube-controller-manager': 'kubeControllerManager',
  'kube-scheduler': 'kubeScheduler',
  kwok: 'kwok',
  jobset: 'jobset',
  trainer: 'trainer',
  kueue: 'kueue',
};

/** Parses the script's "<tool>=<path>" lines. */
export function parseServerPaths(stdout: string): Partial<ServerBinaries> {
  const found: Partial<ServerBinaries> = {};
  for (const line of stdout.split('\n')) {
    const at = line.indexOf('=');
    const key = TOOLS[line.slice(0, at)];
    if (at > 0 && key) found[key] = line.slice(at + 1).trim();
  }
  return found;
}

/** Runs scripts/<script>; answers its exit status and stdout (its stderr, a cold build's progress, is ours). */
export function runBuildScript(script: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(repoRoot, 'scripts', script), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout }));
  });
}

const runScript = (args: string[]) => runBuildScript('build-servers.sh', args);

/**
 * Paths of the servers. Builds what is missing (minutes, once per version) unless
 * `build` is false, in which case a missing binary is an error naming the command to run.
 */
export async function serverBinaries(options: { build?: boolean } = {}): Promise<ServerBinaries> {
  const printed = await runScript(['--print']);
  let found = parseServerPaths(printed.stdout);
  if (printed.code !== 0) {
    if (options.build === false) {
      throw new Error('server binaries missing: run `bash scripts/build-servers.sh` (builds once, then cached)');
    }
    const built = await runScript([]);
    if (built.code !== 0) throw new Error(`scripts/build-servers.sh failed (exit ${built.code}); its output is above`);
    found = parseServerPaths(built.stdout);
  }
  const missing = Object.entries(TOOLS).filter(([, key]) => !found[key]);
  if (missing.length > 0) throw new Error(`scripts/build-servers.sh did not report ${missing.map(([tool]) => tool).join(', ')}`);
  return found as ServerBinaries;
}
