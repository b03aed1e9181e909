// `dispatch-kubeflow worker`: connects to Temporal with the standard settings, serves the
// workflows, exports Prometheus metrics, and shuts down gracefully on SIGTERM/SIGINT: the SDK's
// runtime handles both signals, the worker stops polling (/readyz turns 503) and lets its in-flight
// activities finish within the drain grace (src/core/drain.ts), then exits.
//
// Two metrics endpoints (docs/observability.md): the Temporal SDK's own (Core's exporter) on
// --metrics, dispatch's (Starts, steps, compensations, process) on --dispatch-metrics; /readyz and
// /livez on --health (observability/health-server.ts). Logs are JSON on stderr, from --log-level
// (or DISPATCH_LOG_LEVEL) up, the worker's own lines and the SDK's alike. The codec
// (DISPATCH_CODEC_KEYS) and tracing (DISPATCH_TRACING) come from the environment.
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { codecFromEnv } from '../codec/index.js';
import { createDispatchMetrics } from '../observability/metrics.js';
import { serveMetrics, serveSdkMetrics } from '../observability/metrics-server.js';
import { freeLoopbackPort } from '../observability/listen.js';
import { tlsPathsFromFlags } from '../observability/tls-files.js';
import { serveHealth } from '../observability/health-server.js';
import { createHealthSource } from '../worker/health.js';
import { installRuntime } from '../observability/runtime.js';
import { tracingFromEnv } from '../observability/tracing.js';
import { connectClient, connectWorker } from '../worker/connect.js';
import { createDispatchWorker } from '../worker/dispatch-worker.js';
import { heapLimit } from '../worker/heap.js';
import { log, setLogLevel } from '../observability/log.js';
import { resolveLogLevel } from '../observability/json-logger.js';

/** The signals the SDK's runtime stops the worker on (its default shutdownSignals but SIGQUIT and SIGUSR2). */
const DRAIN_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

export interface WorkerCommandOptions {
  preflightInterval: string;
  metrics: string;
  dispatchMetrics: string;
  health: string;
  logLevel?: string;
  /** HTTPS for --metrics, --dispatch-metrics and --health: the certificate's and key's files, re-read when they change. */
  tlsCert?: string;
  tlsKey?: string;
  /** A build of a Temporal worker deployment (both, or neither: unversioned). */
  deploymentName?: string;
  buildId?: string;
}

export async function runWorkerCommand(config: Config, opts: WorkerCommandOptions): Promise<void> {
  if ((opts.deploymentName === undefined) !== (opts.buildId === undefined))
    throw new Error('--deployment-name and --build-id go together (DISPATCH_DEPLOYMENT_NAME, DISPATCH_BUILD_ID): a versioned worker needs both');
  const interval = parseGoDuration(opts.preflightInterval);
  if (interval === undefined || interval <= 0n) throw new Error(`--preflight-interval ${opts.preflightInterval} is not a positive Go duration`);
  // A misconfigured level, codec or tracing stops the worker before it takes any task.
  const logLevel = resolveLogLevel(opts.logLevel);
  setLogLevel(logLevel);
  const codec = codecFromEnv();
  const tracing = await tracingFromEnv();
  const tls = tlsPathsFromFlags(opts);
  // Core's exporter serves plain HTTP only: with TLS, it listens on loopback and --metrics serves it over HTTPS.
  const sdkExporter = tls ? `127.0.0.1:${await freeLoopbackPort()}` : opts.metrics;
  installRuntime({ prometheusAddress: sdkExporter, logLevel });
  const metrics = createDispatchMetrics({ processMetrics: true });
  const metricsServer = await serveMetrics(opts.dispatchMetrics, metrics.registry, tls);
  const sdkMetricsServer = tls ? await serveSdkMetrics(opts.metrics, `http://${sdkExporter}`, tls) : undefined;
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
  const healthServer = await serveHealth(opts.health, createHealthSource({ worker: worker.worker, connection, gates: worker.gates, queueSharing: worker.queueSharing }), tls);
  const heap = heapLimit();
  log('worker started', {
    taskQueue: config.temporal.taskQueue,
    namespace: config.namespace,
    mode: config.mode,
    metrics: sdkMetricsServer ? `${sdkMetricsServer.url}/metrics` : opts.metrics,
    dispatchMetrics: `${metricsServer.url}/metrics`,
    health: `${healthServer.url}/readyz`,
    tls: tls ? `on, ${tls.certFile}, re-read when it changes` : 'off',
    codec: codec ? `on, encrypting with key ${codec.currentKeyId}` : 'off',
    tracing: tracing ? 'on' : 'off',
    heapLimitMiB: heap.heapLimitMiB,
    drainGraceSeconds: worker.drain.graceMs / 1000,
    build: opts.buildId !== undefined ? `${opts.deploymentName}.${opts.buildId}` : 'unversioned',
  });
  if (heap.warning) log(heap.warning, {}, 'warn');
  const { drain } = worker;
  if (drain.explicit && drain.graceMs < drain.longestActivityMs)
    log('timeouts.drain is shorter than the longest activity: a rollout may cancel a Start waiting for its Workload, to be retried on another worker', {
      drainSeconds: drain.graceMs / 1000,
      longestActivitySeconds: drain.longestActivityMs / 1000,
    });
  // Once: the SDK's runtime stops listening after the first signal, so a second one ends the
  // process at once (a Ctrl-C that does not want to wait). The grace is the SDK's; the force time is
  // this process's own end: an activity that ignored its cancellation must not hold it for ever.
  // Unref'd, the timer keeps nothing alive once the worker has drained.
  const draining = (signal: NodeJS.Signals) => {
    for (const other of DRAIN_SIGNALS) process.off(other, draining);
    log('worker draining: polling stopped, in-flight activities finish', { signal, graceSeconds: drain.graceMs / 1000, forceSeconds: drain.forceMs / 1000 });
    setTimeout(() => {
      log('worker stopped waiting for its activities: exiting', { forceSeconds: drain.forceMs / 1000 });
      process.exit(1);
    }, drain.forceMs).unref();
  };
  for (const signal of DRAIN_SIGNALS) process.on(signal, draining);
  try {
    await worker.run();
  } catch (error) {
    log('worker failed', { error }, 'error');
    throw error;
  } finally {
    await healthServer.close();
    await client.connection.close();
    await connection.close();
    await metricsServer.close();
    await sdkMetricsServer?.close();
    await tracing?.shutdown();
  }
  log('worker stopped');
}
