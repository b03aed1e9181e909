// The end of step 6's retries of a webhook's lag (docs/contract.md §6a), decided from data alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lagEnd } from '../../../../src/core/start/runtime-lag.js';
import { assertReaching } from '../reached.js';

const input = fc.record({
  earlierCreateUnanswered: fc.boolean(),
  copyAgeMs: fc.option(fc.nat({ max: 3_600_000 }), { nil: undefined }),
  runtimeLagMs: fc.integer({ min: 1, max: 3_600_000 }),
});

describe('lagEnd', () => {
  it('never hides a create that may have landed: after an unanswered create, always the TrainJob looked for', () => {
    fc.assert(fc.property(input, (i) => (lagEnd(i) === 'find-trainjob') === i.earlierCreateUnanswered));
  });

  it('bounded: ErrRejected exactly when the copy is known to be older than timeouts.runtimeLag, else the retryable ErrUnreachable', () => {
    // Half the 400 cases pass the filter, on either side of the bound (measured: 82 old and 103
    // young): a minimum of 20 each is far under that.
    assertReaching({ old: 20, young: 20 }, (reached) =>
      fc.property(input, (i) => {
        if (i.earlierCreateUnanswered) return;
        const old = i.copyAgeMs !== undefined && i.copyAgeMs >= i.runtimeLagMs;
        reached(old ? 'old' : 'young');
        expect(lagEnd(i)).toBe(old ? 'ErrRejected' : 'ErrUnreachable');
      }),
      { numRuns: 400 },
    );
    expect(lagEnd({ earlierCreateUnanswered: false, copyAgeMs: undefined, runtimeLagMs: 1 })).toBe('ErrUnreachable');
    expect(lagEnd({ earlierCreateUnanswered: false, copyAgeMs: 300_000, runtimeLagMs: 300_000 })).toBe('ErrRejected');
  });
});
