// Bad input, StartRequest (docs/reliability.md): 10,000 generated requests per run, most of them
// structure-aware mutations of valid ones, through what a Start runs before it creates anything
// (validate, the allow-list, the runtime rules, render: steps 1-4, pure and in-process, exactly as
// the workflow runs them). Every case ends in a plan or a typed refusal that names its reasons and
// survives the trip to a caller; nothing else is thrown, and no case takes long. The same requests
// go through the real servers in test/integration/reliability/fuzz-start.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import { planStart } from '../../../src/core/start/plan.js';
import { compareReadBack } from '../../../src/core/start/readback.js';
import { allowListRefusal } from '../../../src/core/start/refusals.js';
import { validate } from '../../../src/core/start/validate.js';
import { DispatchError, ERROR_TYPES } from '../../../src/model/errors.js';
import { fromFailure, toApplicationFailure } from '../../../src/model/error-failures.js';
import type { Config } from '../../../src/model/config.js';
import type { TrainJob } from '../../../src/model/kube.js';
import { dispatchKind } from '../../fixtures/runtimes/load.js';
import { recordFigure } from '../../reliability/support/figures.js';
import { anyRequestArb, viaJson } from '../../reliability/support/fuzz.js';

const RUNS = 10_000;

type Verdict = { planned: true } | { planned: false; error: DispatchError };

/** Steps 1-4 of a Start without the API server: what the workflow decides before it writes. */
function decide(input: unknown, config: Config): Verdict {
  try {
    const valid = validate(input);
    const notAllowed = allowListRefusal(valid.runtime, config);
    if (notAllowed) throw notAllowed;
    const plan = planStart(valid, dispatchKind(), config);
    // What the API server stores is the JSON of what was sent: read back, it must equal what was written.
    expect(
      compareReadBack(plan.trainJob, viaJson(plan.trainJob) as unknown as TrainJob, config.mode),
    ).toEqual([]);
    expect(plan.trainJob.metadata.name).toMatch(/^dj-[0-9a-z]{26}-s[1-9][0-9]{0,5}$/);
    return { planned: true };
  } catch (error) {
    if (error instanceof DispatchError) return { planned: false, error };
    throw error;
  }
}

/** A refusal as a caller gets it: typed, every reason named, and the same after the trip through Temporal. */
function expectWellTyped(error: DispatchError): void {
  expect(ERROR_TYPES).toContain(error.type);
  expect([1, 2, 3, 4]).toContain(error.step);
  expect(error.reasons.length).toBeGreaterThan(0);
  for (const reason of error.reasons) {
    expect(typeof reason).toBe('string');
    expect(reason.trim()).not.toBe('');
    expect(error.message).toContain(reason);
  }
  const received = fromFailure(toApplicationFailure(error));
  expect(viaJson(received?.details)).toEqual(viaJson(error.details));
  expect(received?.type).toBe(error.type);
}

const CONFIGS = (['plain', 'kueue'] as const).map((mode) =>
  parseConfig({
    namespace: 'ml-jobs',
    mode,
    kueue: { queue: 'user-queue', admissionCheck: 'dispatch' },
    // In Kueue mode an allow-list too, so that step 2's refusal is among the outcomes.
    runtimes: mode === 'kueue' ? ['ClusterTrainingRuntime/dispatch-kind'] : [],
  }),
);

describe('bad input: StartRequest fuzz, steps 1-4 in-process', () => {
  it(`${RUNS} requests, plain and Kueue mode, each end in a plan or a typed refusal naming its reasons`, () => {
    const counts: Record<string, number> = {};
    let slowest = 0;
    const t0 = performance.now();
    fc.assert(
      fc.property(anyRequestArb, fc.constantFrom(...CONFIGS), (input, config) => {
        const started = performance.now();
        const verdict = decide(input, config);
        slowest = Math.max(slowest, performance.now() - started);
        if (!verdict.planned) expectWellTyped(verdict.error);
        const key = verdict.planned ? 'planned' : verdict.error.type;
        counts[key] = (counts[key] ?? 0) + 1;
      }),
      { numRuns: RUNS },
    );
    const totalMs = performance.now() - t0;
    recordFigure('fuzz StartRequest (in-process)', {
      cases: RUNS,
      ...counts,
      totalMs: Math.round(totalMs),
      slowestCaseMs: Math.round(slowest),
    });
    // Every kind of outcome is exercised, not just one.
    expect(counts.planned ?? 0).toBeGreaterThan(RUNS / 50);
    expect(counts.ErrInvalid ?? 0).toBeGreaterThan(RUNS / 5);
    expect(counts.ErrUnsupported ?? 0).toBeGreaterThan(RUNS / 50);
    // Nothing hangs: no single case comes near a second.
    expect(slowest).toBeLessThan(1_000);
  }, 300_000);
});
