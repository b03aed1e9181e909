// The chaos run's plans are a function of the seed alone: the same seed replays the same lifecycles
// and faults, a part is never faulted again while it is down, and every fault stays in its bounds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../chaos/random.js';
import { ALL_FAULT_KINDS, describeFault, isProxyKind, MULTIKUEUE_FAULT_WEIGHTS, MULTIKUEUE_FIRST_FAULTS, MULTIKUEUE_SHAPE_WEIGHTS, planFaults, planLifecycles, SHAPE_WEIGHTS, SHAPES, WORKER_CLUSTER_TARGETS } from '../../chaos/schedule.js';

const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });

describe('chaos schedule', () => {
  it('a seed gives the same lifecycles and faults every time; another seed other ones', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        expect(planLifecycles(seed, 30)).toEqual(planLifecycles(seed, 30));
        expect(planFaults(seed, { count: 50, meanGapMs: 5_000, workers: 4 })).toEqual(planFaults(seed, { count: 50, meanGapMs: 5_000, workers: 4 }));
      }),
      { numRuns: 50 },
    );
    expect(planFaults(1, { count: 20, meanGapMs: 5_000, workers: 4 })).not.toEqual(planFaults(2, { count: 20, meanGapMs: 5_000, workers: 4 }));
  });

  it('more jobs leave the fault schedule and the first jobs as they were', () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 40 }), (seed, jobs) => {
        expect(planLifecycles(seed, jobs + 10).slice(0, jobs)).toEqual(planLifecycles(seed, jobs));
      }),
      { numRuns: 50 },
    );
  });

  it('faults come in time order, each part back (and a second more) before its next fault, within their bounds', () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 200 }), fc.integer({ min: 100, max: 20_000 }), (seed, count, meanGapMs) => {
        const faults = planFaults(seed, { count, meanGapMs, workers: 4 });
        expect(faults).toHaveLength(count);
        const freeAt = new Map<string, number>();
        for (const [i, fault] of faults.entries()) {
          if (i > 0) expect(fault.atMs).toBeGreaterThanOrEqual(faults[i - 1]!.atMs);
          const part = fault.kind === 'worker-kill' ? `worker-${fault.worker}` : fault.kind;
          expect(fault.atMs).toBeGreaterThanOrEqual(freeAt.get(part) ?? 0);
          freeAt.set(part, fault.atMs + fault.downMs + 1_000);
          expect(fault.downMs).toBeLessThanOrEqual(8_000);
          if (fault.kind === 'worker-kill') expect(fault.worker).toBeLessThan(4);
          expect(fault.kind === 'proxy').toBe(fault.proxy !== undefined);
          expect(describeFault(fault)).toMatch(fault.kind === 'proxy' ? /^proxy / : new RegExp(`^${fault.kind}`));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('every lifecycle starts, its shape is one of the shapes, and only its own operations are duplicated', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        for (const plan of planLifecycles(seed, 20)) {
          expect(Object.keys(SHAPES)).toContain(plan.shape);
          for (const op of plan.duplicated) expect(['start', ...SHAPES[plan.shape]]).toContain(op);
          expect(plan.runtime).toBe(plan.shape === 'run' || plan.shape === 'stop-gated' ? 'short' : 'long');
          expect(plan.multiKueue).toBeUndefined();
        }
      }),
      { numRuns: 50 },
    );
  });

  it('over many lifecycles and faults, every shape, both modes and every kind of fault occur', () => {
    const plans = planLifecycles(7, 1_000);
    expect(new Set(plans.map((p) => p.shape))).toEqual(new Set(Object.keys(SHAPE_WEIGHTS)));
    expect(new Set(plans.map((p) => p.mode))).toEqual(new Set(['plain', 'kueue']));
    const faults = planFaults(7, { count: 300, meanGapMs: 5_000, workers: 4 });
    expect(new Set(faults.map((f) => f.kind)).size).toBe(6);
    expect(new Set(faults.flatMap((f) => (f.proxy ? [f.proxy.action] : []))).size).toBe(7);
  });

  it('--multikueue: every lifecycle in Kueue mode and marked, every shape (a failing job among them, on the fail runtime); every kind of fault, the worker cluster proxy on its own targets', () => {
    const plans = planLifecycles(7, 1_000, { multiKueue: true });
    expect(new Set(plans.map((p) => p.mode))).toEqual(new Set(['kueue']));
    expect(plans.every((p) => p.multiKueue === true)).toBe(true);
    expect(new Set(plans.map((p) => p.shape))).toEqual(new Set(Object.keys(MULTIKUEUE_SHAPE_WEIGHTS)));
    expect(new Set([...Object.keys(MULTIKUEUE_SHAPE_WEIGHTS), ...Object.keys(SHAPE_WEIGHTS)])).toEqual(new Set(Object.keys(SHAPES)));
    expect(Object.keys(MULTIKUEUE_SHAPE_WEIGHTS)).not.toContain('hold-release');
    for (const p of plans) expect(p.runtime === 'fail').toBe(p.shape === 'run-fail');
    const faults = planFaults(7, { count: 300, meanGapMs: 5_000, workers: 2, weights: MULTIKUEUE_FAULT_WEIGHTS });
    expect(new Set(faults.map((f) => f.kind))).toEqual(new Set(ALL_FAULT_KINDS));
    for (const f of faults) {
      expect(isProxyKind(f.kind)).toBe(f.proxy !== undefined);
      if (f.kind === 'worker-cluster-proxy') expect(WORKER_CLUSTER_TARGETS).toContain(f.proxy!.target);
      if (f.kind.startsWith('worker-cluster-')) expect(describeFault(f)).toMatch(new RegExp(`^${f.kind}[ ,]`));
    }
    // The single-cluster schedule never draws the worker cluster's faults.
    expect(planFaults(7, { count: 300, meanGapMs: 5_000, workers: 4 }).filter((f) => f.kind.startsWith('worker-cluster-'))).toEqual([]);
  });

  it("the MultiKueue run plans each of the worker cluster's faults first, whatever the seed; the rest as drawn", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const faults = planFaults(seed, { count: 20, meanGapMs: 4_000, workers: 2, weights: MULTIKUEUE_FAULT_WEIGHTS, first: MULTIKUEUE_FIRST_FAULTS });
        const byIndex = [...faults].sort((a, b) => a.index - b.index);
        expect(byIndex.slice(0, 3).map((f) => f.kind)).toEqual([...MULTIKUEUE_FIRST_FAULTS]);
        // Within the first 20 s of the run at a 4 s mean gap (at most 1.5 gaps each), while a short run's lifecycles go on.
        for (const f of byIndex.slice(0, 3)) expect(f.atMs).toBeLessThanOrEqual(3 * 6_000 + 8_000);
        expect(byIndex[2]!.proxy && WORKER_CLUSTER_TARGETS.includes(byIndex[2]!.proxy.target)).toBe(true);
      }),
    );
  });

  it('the generator stays in its ranges', () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: -5, max: 5 }), fc.integer({ min: 0, max: 10 }), (seed, min, span) => {
        const random = seeded(seed);
        for (let i = 0; i < 20; i++) {
          const x = random.int(min, min + span);
          expect(x).toBeGreaterThanOrEqual(min);
          expect(x).toBeLessThanOrEqual(min + span);
          const f = random.next();
          expect(f).toBeGreaterThanOrEqual(0);
          expect(f).toBeLessThan(1);
        }
      }),
    );
  });
});
