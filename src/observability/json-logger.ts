// The Runtime's logger: one JSON object a line on stderr, in the shape of log.ts, so that
// the SDK's own lines, workflow logs and activity context logs (which the SDK gives workflowId,
// runId, activityType, ...) are all indexable by a log collector.
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { LogTimestamp } from '@temporalio/worker';

export const LOG_LEVEL_ENV = 'DISPATCH_LOG_LEVEL';
const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** A level as an operator writes it (`debug`, `WARN`, ...); `source` names where it came from in the error. */
export function parseLogLevel(text: string, source: string): LogLevel {
  const value = text.trim().toUpperCase();
  if (!LEVELS.includes(value as LogLevel)) throw new Error(`${source} ${text}: must be one of ${LEVELS.join(', ')}`);
  return value as LogLevel;
}

export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  return parseLogLevel(env[LOG_LEVEL_ENV] ?? 'INFO', LOG_LEVEL_ENV);
}

/** The worker's level: its --log-level when given, else DISPATCH_LOG_LEVEL, else INFO. */
export function resolveLogLevel(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): LogLevel {
  return flag !== undefined ? parseLogLevel(flag, '--log-level') : logLevelFromEnv(env);
}

/** What JSON cannot say as is: errors by name, message and stack; bigints as strings; cycles cut. */
function replacer(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) {
      const { name, message, stack } = value;
      const cause = (value as { cause?: unknown }).cause;
      return { name, message, stack, ...(cause !== undefined ? { cause } : {}) };
    }
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[circular]';
      seen.add(value);
    }
    return value;
  };
}

export class JsonLogger implements Logger {
  private readonly threshold: number;

  constructor(
    readonly level: LogLevel = 'INFO',
    private readonly write: (line: string) => void = (line) => process.stderr.write(line),
  ) {
    this.threshold = LEVELS.indexOf(level);
  }

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (LEVELS.indexOf(level) < this.threshold) return;
    // Workflow logs carry the workflow's own time (replay-safe), as nanoseconds since the epoch.
    const nanos = (meta as { [LogTimestamp]?: bigint } | undefined)?.[LogTimestamp];
    const time = new Date(nanos !== undefined ? Number(nanos / 1_000_000n) : Date.now()).toISOString();
    // The line's own time, level and message come first and are never overwritten by a field.
    const {
      time: _time,
      level: _level,
      message: _message,
      ...fields
    } = (meta ?? {}) as Record<string, unknown>;
    this.write(`${JSON.stringify({ time, level: level.toLowerCase(), message, ...fields }, replacer())}\n`);
  }

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}
