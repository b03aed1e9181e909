// The worker process's Temporal Runtime: the JSON logger for the SDK, workflow and activity logs
// (Core's own native logs forwarded to it too), and Core's Prometheus exporter for the SDK metrics.
import type { Logger, LogLevel } from '@temporalio/common';
import { makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { JsonLogger, logLevelFromEnv } from './json-logger.js';

/**
 * Prometheus's conventions for the SDK's metrics, as for dispatch's own: durations in seconds, named
 * with their unit (`temporal_workflow_task_schedule_to_start_latency_seconds`), counters ending in
 * `_total`. Core's defaults (milliseconds, bare names) match no other series on the dashboard, and a
 * query written for them now selects nothing rather than reading milliseconds as seconds.
 */
export const SDK_METRIC_NAMING = { useSecondsForDurations: true, unitSuffix: true, countersTotalSuffix: true } as const;

export function installRuntime(options: {
  prometheusAddress?: string;
  logger?: Logger;
  /** The JsonLogger's level when no logger is given; DISPATCH_LOG_LEVEL (of `env`) when absent. */
  logLevel?: LogLevel;
  env?: NodeJS.ProcessEnv;
}): Runtime {
  return Runtime.install({
    logger: options.logger ?? new JsonLogger(options.logLevel ?? logLevelFromEnv(options.env)),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} },
      ...(options.prometheusAddress
        ? { metrics: { prometheus: { bindAddress: options.prometheusAddress, ...SDK_METRIC_NAMING } } }
        : {}),
    },
  });
}
