// The previous release of the product, run beside today's for the version skew of docs/contract.md
// §10: its tree (git archive of the commit, outside the work tree), and its worker as a process of its
// own, `bin/dispatch-kubeflow.js worker` of that tree, on the run's shared servers. The tree runs its
// own sources through tsx with this checkout's node_modules (its dependencies are the same but for
// a dev tool).
import { spawn, type ChildProcess } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { freePorts } from '../../../dev/harness/process.js';
import { REPO_ROOT as repoRoot, treeOf } from '../../support/git-tree.js';
import { stackInfo } from './context.js';

/**
 * The previous release: the last commit before the Go client's package moved to go/dispatchkubeflow
 * and read results tolerantly (its worker and its Go client).
 */
export const PREVIOUS_RELEASE = '4b127a846198beb2e6cf1312adad7ad9fcb650fd';

export interface PreviousWorker {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** Resolves once its first preflight proved every gate; rejects if it exits or `timeoutMs` passes first. */
  proven(timeoutMs: number): Promise<void>;
  remove(): void;
}

const PROVEN = /"preflight finished".*"start":true/;

/** The previous release's worker with `configFile`, and `env` (e.g. its codec keys) added. */
export async function spawnPreviousWorker(
  configFile: string,
  env: Record<string, string> = {},
): Promise<PreviousWorker> {
  const tree = treeOf(PREVIOUS_RELEASE, ['bin', 'src', 'package.json', 'tsconfig.json']);
  symlinkSync(join(repoRoot, 'node_modules'), join(tree.dir, 'node_modules'));
  const [metrics, dispatchMetrics] = await freePorts(2);
  const args = [
    'bin/dispatch-kubeflow.js',
    'worker',
    '--config',
    configFile,
    '--metrics',
    `127.0.0.1:${metrics}`,
    '--dispatch-metrics',
    `127.0.0.1:${dispatchMetrics}`,
  ];
  const child = spawn(process.execPath, args, {
    cwd: tree.dir,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: stackInfo().temporal.address,
      TEMPORAL_NAMESPACE: stackInfo().temporal.namespace,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const heard = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', heard);
  child.stderr!.on('data', heard);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const proven = (timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!PROVEN.test(output)) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`the previous release's worker proved no gates within ${timeoutMs} ms:\n${output}`));
      }, timeoutMs);
      listeners.add(check);
      void exited.then((code) =>
        reject(new Error(`the previous release's worker exited ${code}:\n${output}`)),
      );
      check();
    });
  return { child, output: () => output, exited, proven, remove: tree.remove };
}
