// `dispatch-kubeflow worker` as an operator runs it: a process of its own (bin/dispatch-kubeflow.js),
// configured by a file and the standard TEMPORAL_* variables, its metrics and health servers on
// free loopback ports, its output kept for the test's messages.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../../../dev/harness/process.js';
import { stackInfo } from './context.js';
import { writeKubeconfig } from './dispatch.js';
import { kubeAccess } from './kube.js';

const repo = join(import.meta.dirname, '..', '..', '..');

/**
 * How soon a command that runs a worker returns once its work is done or it is told to stop
 * (README, "The two commands"; docs/deploy.md): `npm start` after its last line or a Ctrl-C,
 * `dispatch-kubeflow worker` after SIGTERM with no activity in flight (with one, it drains it
 * first: test/integration/worker/drain.test.ts). Measured: well under 2 s.
 */
export const SHUTDOWN_BOUND_MS = 10_000;

export interface WorkerCommand {
  child: ChildProcess;
  /** Everything it wrote, stdout and stderr. */
  output(): string;
  /** http://127.0.0.1:<port> of its --health server (https:// with --tls-cert among `args`). */
  healthUrl: string;
  /** The same of --metrics (the Temporal SDK's) and --dispatch-metrics. */
  metricsUrl: string;
  dispatchMetricsUrl: string;
  /** Resolves with the exit code (null when killed by a signal) once it has exited. */
  exited: Promise<number | null>;
}

/**
 * A config.yaml for the worker: the namespace, a kubeconfig (default the admin's, directly; e.g. one
 * through a fault proxy), a task queue, and `extra` lines.
 */
export function writeWorkerConfig(namespace: string, taskQueue: string, extra: string[] = [], kubeconfig = writeKubeconfig(kubeAccess('admin', namespace))): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dk-worker-')), 'config.yaml');
  writeFileSync(file, [`namespace: ${namespace}`, `kubeconfig: ${kubeconfig}`, 'temporal:', `  taskQueue: ${taskQueue}`, ...extra, ''].join('\n'));
  return file;
}

export async function spawnWorkerCommand(options: {
  config: string;
  /** Default: the run's shared Temporal. */
  temporalAddress?: string;
  /** More environment, e.g. DISPATCH_WORKFLOW_BUNDLE. */
  env?: Record<string, string>;
  /** More flags, e.g. --tls-cert and --tls-key. */
  args?: string[];
}): Promise<WorkerCommand> {
  const [metrics, dispatchMetrics, health] = await freePorts(3);
  const args = ['bin/dispatch-kubeflow.js', 'worker', '--config', options.config];
  args.push('--metrics', `127.0.0.1:${metrics}`, '--dispatch-metrics', `127.0.0.1:${dispatchMetrics}`, '--health', `127.0.0.1:${health}`);
  args.push(...(options.args ?? []));
  const url = (port: number) => `${args.includes('--tls-cert') ? 'https' : 'http'}://127.0.0.1:${port}`;
  const child = spawn(process.execPath, args, {
    cwd: repo,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: options.temporalAddress ?? stackInfo().temporal.address,
      TEMPORAL_NAMESPACE: stackInfo().temporal.namespace,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, healthUrl: url(health!), metricsUrl: url(metrics!), dispatchMetricsUrl: url(dispatchMetrics!), exited };
}
