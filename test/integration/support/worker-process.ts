// `dispatch-kubeflow worker` as an operator runs it: a separate process, configured by a file and
// the standard TEMPORAL_* variables, on the run's shared servers, with both metrics endpoints on
// free ports.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { stackInfo } from './context.js';
import { writeKubeconfig } from './dispatch.js';
import { kubeAccess } from './kube.js';

const repo = join(import.meta.dirname, '..', '..', '..');

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

export interface WorkerProcess {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** http://127.0.0.1:<port> of --metrics (Core's exporter) and of --dispatch-metrics. */
  metricsUrl: string;
  dispatchMetricsUrl: string;
}

/**
 * Spawns the worker for `namespace` on `taskQueue` with an admin kubeconfig; `config` adds to the
 * configuration file (mode, kueue, timeouts, ...).
 */
export async function spawnWorker(namespace: string, taskQueue: string, config: Record<string, unknown> = {}): Promise<WorkerProcess> {
  const file = join(mkdtempSync(join(tmpdir(), 'dk-worker-')), 'config.yaml');
  const kubeconfig = writeKubeconfig(kubeAccess('admin', namespace));
  writeFileSync(file, stringify({ namespace, kubeconfig, ...config, temporal: { taskQueue } }));
  const [metrics, dispatchMetrics] = [await freePort(), await freePort()];
  const args = ['bin/dispatch-kubeflow.js', 'worker', '--config', file, '--metrics', `127.0.0.1:${metrics}`, '--dispatch-metrics', `127.0.0.1:${dispatchMetrics}`];
  const child = spawn(process.execPath, args, {
    cwd: repo,
    env: { ...process.env, TEMPORAL_ADDRESS: stackInfo().temporal.address, TEMPORAL_NAMESPACE: stackInfo().temporal.namespace },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output, metricsUrl: `http://127.0.0.1:${metrics}`, dispatchMetricsUrl: `http://127.0.0.1:${dispatchMetrics}` };
}
