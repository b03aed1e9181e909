// The drain grace of a stopped worker (src/core/drain.ts, docs/contract.md §10): longer than every
// activity a worker may hold, so that none is cancelled by a rollout; an explicit timeouts.drain
// wins; the force time and the pod's termination grace come after it, in that order. The recorded
// histories say what bound each scheduled activity really had: the grace of the configuration the
// activity was scheduled with must exceed it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import { DRAIN_MARGIN_MS, drainTimes, longestActivityMs, podTerminationGraceSeconds } from '../../../src/core/drain.js';
import { ConfigSchema, type Config } from '../../../src/model/config.js';
import { allHistories } from '../replay/corpus.js';

/** Whole seconds and milliseconds as a Go duration (e.g. "90s", "1500ms"). */
const durationArb = fc.oneof(fc.integer({ min: 1, max: 3_600 }).map((s) => `${s}s`), fc.integer({ min: 1, max: 600_000 }).map((n) => `${n}ms`));
const toMs = (duration: string) => (duration.endsWith('ms') ? Number(duration.slice(0, -2)) : Number(duration.slice(0, -1)) * 1000);

describe('drainTimes', () => {
  it('with no timeouts.drain, the grace exceeds the step-9 wait (timeouts.workload + 2 × CallBound) by the margin, and force and the pod grace come after', () => {
    fc.assert(
      fc.property(durationArb, durationArb, (workload, call) => {
        const times = drainTimes({ workload, call });
        expect(times.explicit).toBe(false);
        expect(times.longestActivityMs).toBe(toMs(workload) + 2 * toMs(call));
        expect(times.graceMs).toBe(times.longestActivityMs + DRAIN_MARGIN_MS);
        expect(times.forceMs).toBeGreaterThan(times.graceMs);
        expect(podTerminationGraceSeconds({ workload, call }) * 1000).toBeGreaterThan(times.forceMs);
      }),
    );
  });

  it('an explicit timeouts.drain is the grace, longer or shorter than the longest activity', () => {
    fc.assert(
      fc.property(durationArb, durationArb, durationArb, (workload, call, drain) => {
        const times = drainTimes({ workload, call, drain });
        expect(times).toMatchObject({ graceMs: toMs(drain), explicit: true, longestActivityMs: longestActivityMs({ workload, call }) });
        expect(podTerminationGraceSeconds({ workload, call, drain }) * 1000).toBeGreaterThan(times.forceMs);
      }),
    );
  });

  it('the defaults (workload 60s, call 30s): a grace of 130 s, and a pod grace of 150 s (deploy/kubernetes, the chart)', () => {
    const { timeouts } = ConfigSchema.parse({ namespace: 'ml-jobs' });
    expect(drainTimes(timeouts)).toEqual({ graceMs: 130_000, forceMs: 140_000, explicit: false, longestActivityMs: 120_000 });
    expect(podTerminationGraceSeconds(timeouts)).toBe(150);
  });

  it('timeouts.drain is a Go duration above 0, named when it is not', () => {
    expect(ConfigSchema.parse({ namespace: 'ml-jobs', timeouts: { drain: '5m' } }).timeouts.drain).toBe('5m');
    const refused = ConfigSchema.safeParse({ namespace: 'ml-jobs', timeouts: { drain: '0s' } });
    expect(refused.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['timeouts.drain', 'must be above 0']]);
  });

  it("exceeds the start-to-close bound of every activity the recorded histories scheduled, with the configuration it ran with (the pre-§9b Watch's hour-long slice aside)", () => {
    const seen: string[] = [];
    for (const { name, history } of allHistories()) {
      for (const event of history.events ?? []) {
        const scheduled = event.activityTaskScheduledEventAttributes;
        const payload = scheduled?.input?.payloads?.[0];
        if (!scheduled || !payload) continue;
        const input = defaultPayloadConverter.fromPayload(payload) as { config?: Pick<Config, 'timeouts'> } | undefined;
        const activity = scheduled.activityType?.name ?? '';
        // A Watch from before it held no activity: one slice of an hour that heartbeats its
        // progress and resumes on another worker when cancelled (src/core/drain.ts).
        if (!input?.config || activity === 'watchTrainJob') continue;
        const boundMs = Number(scheduled.startToCloseTimeout?.seconds ?? 0) * 1000 + Math.round((scheduled.startToCloseTimeout?.nanos ?? 0) / 1e6);
        expect(drainTimes(input.config.timeouts).graceMs, `${name}: ${activity}`).toBeGreaterThan(boundMs);
        seen.push(activity);
      }
    }
    // The Workload waits of the Kueue-mode Starts are there to be checked.
    expect(seen.filter((activity) => activity === 'waitForWorkload').length).toBeGreaterThanOrEqual(5);
  });
});
