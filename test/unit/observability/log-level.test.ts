// One level for every line of the worker (--log-level, else DISPATCH_LOG_LEVEL, else info): the
// JsonLogger writes a line at or above its level and drops the rest, and the worker's own lines
// (observability/log.ts) go through it with the level their message deserves.
import fc from 'fast-check';
import type { LogLevel } from '@temporalio/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonLogger, LOG_LEVEL_ENV, parseLogLevel, resolveLogLevel } from '../../../src/observability/json-logger.js';
import { log, setLogLevel, type LineLevel } from '../../../src/observability/log.js';

const ORDER: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
const level = fc.constantFrom(...ORDER);
/** A level as an operator may write it: any case, spaces around. */
const written = fc.tuple(level, fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }), fc.constantFrom('', ' ', '\t')).map(([l, upper, pad]) =>
  `${pad}${[...l].map((c, i) => (upper[i] ? c : c.toLowerCase())).join('')}${pad}`,
);

describe('the level an operator chooses', () => {
  it('is read in any case, the flag before the variable', () => {
    fc.assert(
      fc.property(written, fc.option(written, { nil: undefined }), (env, flag) => {
        const chosen = resolveLogLevel(flag, { [LOG_LEVEL_ENV]: env });
        expect(chosen).toBe((flag ?? env).trim().toUpperCase());
      }),
    );
    expect(resolveLogLevel(undefined, {})).toBe('INFO');
  });

  it('is refused, naming where it came from, when it is not a level', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !ORDER.includes(s.trim().toUpperCase() as LogLevel)),
        (text) => {
          expect(() => resolveLogLevel(text, {})).toThrow(`--log-level ${text}: must be one of TRACE, DEBUG, INFO, WARN, ERROR`);
          expect(() => resolveLogLevel(undefined, { [LOG_LEVEL_ENV]: text })).toThrow(`${LOG_LEVEL_ENV} ${text}:`);
        },
      ),
    );
    expect(() => parseLogLevel('verbose', 'x')).toThrow('x verbose');
  });
});

describe('JsonLogger', () => {
  it('writes a line at or above its level, with that level, and nothing below it', () => {
    fc.assert(
      fc.property(level, level, fc.string(), (threshold, line, message) => {
        const written: string[] = [];
        new JsonLogger(threshold, (text) => written.push(text)).log(line, message, { a: 1 });
        if (ORDER.indexOf(line) < ORDER.indexOf(threshold)) expect(written).toEqual([]);
        else expect(written.map((w) => JSON.parse(w) as unknown)).toEqual([{ time: expect.any(String), level: line.toLowerCase(), message, a: 1 }]);
      }),
    );
  });
});

describe("the worker's own lines (log)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    setLogLevel('INFO');
  });

  const linesAt = (threshold: LogLevel, levels: (LineLevel | undefined)[]) => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => (written.push(String(text)), true));
    setLogLevel(threshold);
    for (const l of levels) log(`a line at ${l ?? 'the default'}`, { n: 1 }, l);
    return written.map((w) => JSON.parse(w) as { level: string; message: string; n: number });
  };

  it('are info unless given a level, and honour the level set', () => {
    expect(linesAt('INFO', [undefined, 'debug', 'info', 'warn', 'error']).map((l) => `${l.level}: ${l.message}`)).toEqual([
      'info: a line at the default',
      'info: a line at info',
      'warn: a line at warn',
      'error: a line at error',
    ]);
    vi.restoreAllMocks();
    expect(linesAt('WARN', [undefined, 'debug', 'info', 'warn', 'error']).map((l) => l.level)).toEqual(['warn', 'error']);
    vi.restoreAllMocks();
    expect(linesAt('DEBUG', ['debug'])).toEqual([{ time: expect.any(String), level: 'debug', message: 'a line at debug', n: 1 }]);
  });
});
