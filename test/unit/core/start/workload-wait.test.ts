// Step 9's clock: time without an answer does not count against timeouts.workload, up to CallBound
// in all; with every check answered the wait ends exactly at timeouts.workload.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterCheck, creditedSeconds, startWaitClock, waitLeft } from '../../../../src/core/start/workload-wait.js';

const WORKLOAD_MS = 60_000;
const CALL_MS = 30_000;
const START = 1_000_000;

/** Checks one after another: the gap since the previous one (ms) and whether it was answered. */
const checks = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 5_000 }), answered: fc.boolean() }), { maxLength: 80 });

/** Runs the clock over the checks and returns it with the time of the last check. */
function run(sequence: { gap: number; answered: boolean }[]) {
  let clock = startWaitClock(START, WORKLOAD_MS);
  let now = START;
  for (const check of sequence) {
    now += check.gap;
    clock = afterCheck(clock, now, check.answered, CALL_MS);
  }
  return { clock, now };
}

/** The oracle: the spans from each outage's first unanswered check to the next answered one (or to now). */
function outageMs(sequence: { gap: number; answered: boolean }[]): number {
  let now = START;
  let since: number | undefined;
  let total = 0;
  for (const check of sequence) {
    now += check.gap;
    if (!check.answered) since ??= now;
    else if (since !== undefined) {
      total += now - since;
      since = undefined;
    }
  }
  return since === undefined ? total : total + (now - since);
}

describe('the Workload wait clock', () => {
  it('ends at timeouts.workload when every check is answered', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5_000 }), { maxLength: 40 }), (gaps) => {
        const { clock, now } = run(gaps.map((gap) => ({ gap, answered: true })));
        expect(now + waitLeft(clock, now, CALL_MS)).toBe(START + WORKLOAD_MS);
        expect(creditedSeconds(clock, now, CALL_MS)).toBe(0);
      }),
    );
  });

  it('adds the time without an answer to the deadline, up to CallBound in all', () => {
    fc.assert(
      fc.property(checks, (sequence) => {
        const { clock, now } = run(sequence);
        const credit = Math.min(CALL_MS, outageMs(sequence));
        expect(now + waitLeft(clock, now, CALL_MS)).toBe(START + WORKLOAD_MS + credit);
        expect(clock.credited).toBeLessThanOrEqual(CALL_MS);
        expect(creditedSeconds(clock, now, CALL_MS)).toBe(Math.round(credit / 1000));
      }),
    );
  });

  it('counts an outage from its first unanswered check, not from each one', () => {
    let clock = startWaitClock(START, WORKLOAD_MS);
    clock = afterCheck(clock, START + 10_000, false, CALL_MS);
    clock = afterCheck(clock, START + 11_000, false, CALL_MS);
    clock = afterCheck(clock, START + 22_000, true, CALL_MS);
    expect(clock).toEqual({ deadline: START + WORKLOAD_MS + 12_000, credited: 12_000 });
  });

  it('ends an outage longer than CallBound at the deadline plus CallBound', () => {
    let clock = startWaitClock(START, WORKLOAD_MS);
    clock = afterCheck(clock, START + 50_000, false, CALL_MS);
    expect(waitLeft(clock, START + 90_000, CALL_MS)).toBe(0);
    expect(waitLeft(clock, START + 95_000, CALL_MS)).toBe(-5_000);
  });
});
