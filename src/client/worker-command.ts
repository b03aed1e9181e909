// `dispatch-kubeflow worker`: connects to Temporal with the standard settings, serves the
// workflows, exports Prometheus metrics, and shuts down gracefully on SIGTERM/SIGINT (the SDK's
// runtime handles both signals by draining in-flight tasks).
import { Runtime } from '@temporalio/worker';
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { connectClient, connectWorker } from '../worker/connect.js';
import { createDispatchWorker } from '../worker/dispatch-worker.js';
import { log } from '../worker/log.js';

export async function runWorkerCommand(config: Config, opts: { preflightInterval: string; metrics: string }): Promise<void> {
  const interval = parseGoDuration(opts.preflightInterval);
  if (interval === undefined || interval <= 0n) throw new Error(`--preflight-interval ${opts.preflightInterval} is not a positive Go duration`);
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: opts.metrics } } } });
  const { connection, namespace } = await connectWorker();
  const client = await connectClient();
  const worker = await createDispatchWorker({ config, connection, namespace, client, preflightIntervalMs: toMillis(interval) });
  log('worker started', { taskQueue: config.temporal.taskQueue, namespace: config.namespace, mode: config.mode, metrics: opts.metrics });
  await worker.run();
  await client.connection.close();
  await connection.close();
  log('worker stopped');
}
