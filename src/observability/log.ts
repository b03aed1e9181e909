// The process's own lines (the worker's preflight, admission check controller and counts, the
// codec server): one JSON object a line on stderr, written by the same JsonLogger as the SDK's, so
// one level (--log-level, or DISPATCH_LOG_LEVEL) governs both.
import type { LogLevel } from '@temporalio/common';
import { JsonLogger, logLevelFromEnv } from './json-logger.js';

/**
 * How much what a line reports matters: `debug` detail; `info` what happened; `warn` a problem the
 * process rides out (retried, or refused until it passes) that an operator may need to see;
 * `error` a failure the process did not expect or cannot get past by itself.
 */
export type LineLevel = 'debug' | 'info' | 'warn' | 'error';

/** What a component that logs takes as a dependency; `level` is `info` unless the line reports a problem. */
export type Log = (message: string, fields?: Record<string, unknown>, level?: LineLevel) => void;

let own: JsonLogger | undefined;

/** The threshold of the process's own lines, set once the command has read its options. */
export function setLogLevel(level: LogLevel): void {
  own = new JsonLogger(level);
}

/** Before setLogLevel: DISPATCH_LOG_LEVEL, or info when it is not a level (the worker refuses that at start). */
function fromEnv(): JsonLogger {
  try {
    return new JsonLogger(logLevelFromEnv());
  } catch {
    return new JsonLogger('INFO');
  }
}

export const log: Log = (message, fields = {}, level = 'info') => {
  own ??= fromEnv();
  own[level](message, fields);
};
