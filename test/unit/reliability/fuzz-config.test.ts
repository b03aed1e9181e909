// Bad input, the configuration (docs/reliability.md): 10,000 generated configurations per run, most
// of them structure-aware mutations of valid ones, through the loader. Each is either refused with
// a ConfigError naming every reason, or accepted as a configuration a worker can run: its CallBound
// gives every Kubernetes call a bound Temporal accepts (a whole millisecond at least), it survives
// the trip to the workflow as JSON unchanged, and a valid request is planned on it or refused with a
// typed error. Nothing else is thrown and no case takes long.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/config/load-config.js';
import { planStart } from '../../../src/core/start/plan.js';
import { validate } from '../../../src/core/start/validate.js';
import { parseGoDuration, toMillis } from '../../../src/model/duration.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { Config } from '../../../src/model/config.js';
import { dispatchKind } from '../../fixtures/runtimes/load.js';
import { startRequest } from '../../support/requests.js';
import { recordFigure } from '../../reliability/support/figures.js';
import { anyConfigArb, viaJson } from '../../reliability/support/fuzz.js';

const RUNS = 10_000;
const VALID = validate(startRequest({ spec: { procsPerNode: 0 } }));

function load(input: unknown): Config | ConfigError {
  try {
    return parseConfig(input, 'fuzz.yaml');
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

/** What the workflow does with the configuration's timeouts (activity-proxies.ts). */
const millis = (duration: string) => toMillis(parseGoDuration(duration)!);

function expectRunnable(config: Config): void {
  // Every Kubernetes call's activity takes CallBound as its timeouts; Temporal reads 0 as "not set".
  expect(millis(config.timeouts.call), `timeouts.call ${config.timeouts.call}`).toBeGreaterThanOrEqual(1);
  expect(Number.isFinite(millis(config.timeouts.workload))).toBe(true);
  // The settings reach the workflow as a JSON payload.
  expect(parseConfig(viaJson(config))).toEqual(config);
  try {
    planStart(VALID, dispatchKind(), config);
  } catch (error) {
    expect(error).toBeInstanceOf(DispatchError);
    expect((error as DispatchError).reasons.length).toBeGreaterThan(0);
  }
}

describe('bad input: configuration fuzz', () => {
  it(`${RUNS} configurations each end in a runnable configuration or a ConfigError naming its reasons`, () => {
    let accepted = 0;
    let refused = 0;
    let slowest = 0;
    const t0 = performance.now();
    fc.assert(
      fc.property(anyConfigArb, (input) => {
        const started = performance.now();
        const loaded = load(input);
        if (loaded instanceof ConfigError) {
          refused++;
          expect(loaded.reasons.length).toBeGreaterThan(0);
          for (const reason of loaded.reasons) expect(loaded.message).toContain(reason);
        } else {
          accepted++;
          expectRunnable(loaded);
        }
        slowest = Math.max(slowest, performance.now() - started);
      }),
      { numRuns: RUNS },
    );
    recordFigure('fuzz configuration (in-process)', {
      cases: RUNS,
      accepted,
      refused,
      totalMs: Math.round(performance.now() - t0),
      slowestCaseMs: Math.round(slowest),
    });
    expect(accepted).toBeGreaterThan(RUNS / 10);
    expect(refused).toBeGreaterThan(RUNS / 10);
    expect(slowest).toBeLessThan(1_000);
  }, 300_000);
});
