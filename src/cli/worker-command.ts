// `dispatch-kubeflow worker`: connects to Temporal with the standard settings, serves the
// workflows, exports Prometheus metrics, and shuts down gracefully on SIGTERM/SIGINT (the SDK's
// runtime handles both signals by draining in-flight tasks).
//
// Two metrics endpoints (docs/observability.md): the Temporal SDK's own (Core's exporter) on
// --metrics, dispatch's (Starts, steps, compensations, process) on --dispatch-metrics; /readyz and
// /livez on --health (observability/health-server.ts). Logs are JSON on stderr. The codec
// (DISPATCH_CODEC_KEYS) and tracing (DISPATCH_TRACING) come from the environment.
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { codecFromEnv } from '../codec/index.js';
import { createDispatchMetrics } from '../observability/metrics.js';
import { serveMetrics } from '../observability/metrics-server.js';
import { serveHealth } from '../observability/health-server.js';
import { createHealthSource } from '../worker/health.js';
import { installRuntime } from '../observability/runtime.js';
import { tracingFromEnv } from '../observability/tracing.js';
import { connectClient, connectWorker } from '../worker/connect.js';
import { createDispatchWorker } from '../worker/dispatch-worker.js';
import { heapLimit } from '../worker/heap.js';
import { log } from '../observability/log.js';

export interface WorkerCommandOptions {
  preflightInterval: string;
  metrics: string;
  dispatchMetrics: string;
  health: string;
  /** A build of a Temporal worker deployment (both, or neither: unversioned). */
  deploymentName?: string;
  buildId?: string;
}

export async function runWorkerCommand(config: Config, opts: WorkerCommandOptions): Promise<void> {
  if ((opts.deploymentName === undefined) !== (opts.buildId === undefined))
    throw new Error('--deployment-name and --build-id go together (DISPATCH_DEPLOYMENT_NAME, DISPATCH_BUILD_ID): a versioned worker needs both');
  const interval = parseGoDuration(opts.preflightInterval);
  if (interval === undefined || interval <= 0n) throw new Error(`--preflight-interval ${opts.preflightInterval} is not a positive Go duration`);
  // A misconfigured codec or tracing stops the worker before it takes any task.
  const codec = codecFromEnv();
  const tracing = await tracingFromEnv();
  installRuntime({ prometheusAddress: opts.metrics });
  const metrics = createDispatchMetrics({ processMetrics: true });
  const metricsServer = await serveMetrics(opts.dispatchMetrics, metrics.registry);
  const plugins = tracing ? [tracing.plugin] : undefined;
  const { connection, namespace } = await connectWorker();
  const client = await connectClient(plugins ? { plugins } : {});
  const worker = await createDispatchWorker({
    config,
    connection,
    namespace,
    client,
    preflightIntervalMs: toMillis(interval),
    metrics,
    ...(opts.deploymentName !== undefined && opts.buildId !== undefined ? { deploymentVersion: { deploymentName: opts.deploymentName, buildId: opts.buildId } } : {}),
    ...(codec ? { dataConverter: { payloadCodecs: [codec] } } : {}),
    ...(plugins ? { plugins } : {}),
  });
  const healthServer = await serveHealth(opts.health, createHealthSource({ worker: worker.worker, connection, gates: worker.gates }));
  const heap = heapLimit();
  log('worker started', {
    taskQueue: config.temporal.taskQueue,
    namespace: config.namespace,
    mode: config.mode,
    metrics: opts.metrics,
    dispatchMetrics: `${metricsServer.url}/metrics`,
    health: `${healthServer.url}/readyz`,
    codec: codec ? `on, encrypting with key ${codec.currentKeyId}` : 'off',
    tracing: tracing ? 'on' : 'off',
    heapLimitMiB: heap.heapLimitMiB,
    build: opts.buildId !== undefined ? `${opts.deploymentName}.${opts.buildId}` : 'unversioned',
  });
  if (heap.warning) log(heap.warning);
  try {
    await worker.run();
  } finally {
    await healthServer.close();
    await client.connection.close();
    await connection.close();
    await metricsServer.close();
    await tracing?.shutdown();
  }
  log('worker stopped');
}
