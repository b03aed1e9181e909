// The worker process's Temporal Runtime: the JSON logger for the SDK, workflow and activity logs
// (Core's own native logs forwarded to it too), and Core's Prometheus exporter for the SDK metrics.
import type { Logger, LogLevel } from '@temporalio/common';
import { makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { JsonLogger, logLevelFromEnv } from './json-logger.js';

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
        ? { metrics: { prometheus: { bindAddress: options.prometheusAddress } } }
        : {}),
    },
  });
}
