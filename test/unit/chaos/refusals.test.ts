// The chaos run's table of refusals by rule: counts as the checker accepted them, the share of the
// run's time each rule's windows covered, the longest run of step-1 refusals after a fault, and the
// step-1 ErrUnreachable among all calls, on records made by hand.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check } from '../../chaos/checker.js';
import type { Answer, CallRecord, FaultRecord, LifecycleRecord, RunHistory } from '../../chaos/history.js';
import { coverage, longestStep1Run, probeFigures, probeLine, refusalLines, refusalTable } from '../../chaos/refusals.js';
import { CHAOS_WINDOWS } from '../../chaos/windows.js';

const OPTIONS = { callBoundMs: 30_000, windows: CHAOS_WINDOWS };
const T0 = 1_000_000;

const lifecycle = (index: number, mode: 'plain' | 'kueue'): LifecycleRecord => ({ plan: { index, mode, shape: 'run', runtime: 'short', duplicated: [], pauseMs: 0 }, jobId: `j${index}`, submission: 1, name: `job-${index}` });
const start = (job: number, t: number, answer: Answer, tryN = 1): CallRecord => ({ job, op: 'start', copy: 0, try: tryN, invokedAt: t, answeredAt: t + 1_000, answer });
const gateUnknown: Answer = { ok: false, type: 'ErrUnreachable', step: 1, message: 'start: not proven' };
const ok: Answer = { ok: true, value: { uid: 'u' } };

describe('chaos refusal table', () => {
  it('coverage is the share of the span inside the union of the intervals', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: -50, max: 150 }), fc.integer({ min: 0, max: 60 })), { maxLength: 8 }), (raw) => {
        const intervals = raw.map(([a, d]) => [a, a + d] as [number, number]);
        let inside = 0;
        for (let t = 0; t < 100; t++) if (intervals.some(([a, b]) => t + 0.5 > a && t + 0.5 < b)) inside++;
        expect(coverage(intervals, { from: 0, to: 100 })).toBeCloseTo(inside / 100, 1);
      }),
    );
    expect(coverage([[10, 30], [20, 40], [90, 200]], { from: 0, to: 100 })).toBeCloseTo(0.4);
  });

  it('counts each rule, the unjustified, the step-1 ErrUnreachable among all calls, and the windows covered per mode', () => {
    const faults: FaultRecord[] = [
      { index: 1, kind: 'apiserver-restart', what: 'apiserver-restart, down 5.0 s', from: T0, to: T0 + 5_000 },
      { index: 2, kind: 'worker-kill', what: 'worker-kill #0, down 1.0 s', from: T0 + 200_000, to: T0 + 201_000, mode: 'plain' },
    ];
    const calls = [
      start(0, T0 + 2_000, gateUnknown),
      start(0, T0 + 4_000, ok, 2),
      // 300 s after any fault: no rule allows it.
      start(1, T0 + 300_000, gateUnknown),
      start(1, T0 + 302_000, ok, 2),
      { ...start(1, T0 + 303_000, ok), op: 'find' as const },
    ];
    const history: RunHistory = { seed: 1, lifecycles: [lifecycle(0, 'plain'), lifecycle(1, 'kueue')], calls, faults, ran: { from: T0, to: T0 + 400_000 } };
    const report = check(history, { trainJobs: [], copies: [], workloads: [], jobSets: [], jobs: [], pods: [], running: [], finds: {} }, OPTIONS);
    const table = refusalTable(history, report, OPTIONS);
    const row = (id: string) => table.rows.find((r) => r.id === id)!;
    expect(row('gate-unknown').count).toBe(1);
    expect(row('gate-unknown').latestLagMs).toBe(0);
    expect(table.unjustified).toBe(1);
    expect(table.step1Unreachable).toEqual({ count: 2, calls: 5 });
    // The plain window also has the plain worker's kill; the Kueue one only the API server's restart.
    const w = row('gate-unknown').windowMs!;
    expect(row('gate-unknown').covered!.kueue).toBeCloseTo((5_000 + w.kueue) / 400_000);
    expect(row('gate-unknown').covered!.plain).toBeCloseTo((5_000 + w.plain + 1_000 + w.plain) / 400_000);
    // Only the API server's restart can cause a 403: its window alone.
    expect(row('rbac-403').covered!.plain).toBeCloseTo((5_000 + CHAOS_WINDOWS.answerMs) / 400_000);
    const lines = refusalLines(table);
    expect(lines[0]).toMatch(/^refusals by rule, over the run's 400\.0 s/);
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}gate-unknown +1 +\d+\.0 s \/ \d+\.0 s +\d+\.\d % \/ \d+\.\d % +0\.0 s$/));
    expect(lines).toContainEqual('  unjustified (violations of answers-justified): 1');
    expect(lines).toContainEqual('step-1 ErrUnreachable: 2 of 5 calls');
  });

  it('the longest run of step-1 refusals: consecutive Start tries of one mode refused at step 1, broken by one that got past it; with the fault before it', () => {
    const faults: FaultRecord[] = [{ index: 4, kind: 'apiserver-restart', what: 'apiserver-restart, down 3.0 s', from: T0, to: T0 + 3_000 }];
    const calls = [
      start(0, T0 + 1_000, gateUnknown),
      start(1, T0 + 2_000, gateUnknown),
      start(2, T0 + 10_000, gateUnknown),
      // A Kueue Start passing step 1 does not end the plain run.
      start(3, T0 + 11_000, ok),
      start(0, T0 + 20_000, ok, 2),
      start(1, T0 + 40_000, gateUnknown, 2),
    ];
    const history: RunHistory = { seed: 1, lifecycles: [lifecycle(0, 'plain'), lifecycle(1, 'plain'), lifecycle(2, 'plain'), lifecycle(3, 'kueue')], calls, faults };
    expect(longestStep1Run(history, faults)).toEqual({ mode: 'plain', count: 3, from: T0 + 1_000, to: T0 + 11_000, after: 'fault 4: apiserver-restart, down 3.0 s', endedAfterRecoveryMs: 8_000 });
    expect(longestStep1Run({ ...history, calls: calls.filter((c) => c.answer.ok) }, faults)).toBeUndefined();
  });
});

describe('chaos probe figures', () => {
  it("measure each probe's time after the last fault it rode out was back, per mode (a worker kill only its mode's)", () => {
    const faults: FaultRecord[] = [
      { index: 1, kind: 'kueue-restart', what: 'kueue-restart', from: T0 + 10_000, to: T0 + 40_000 },
      { index: 2, kind: 'worker-kill', what: 'worker-kill #0', from: T0 + 100_000, to: T0 + 102_000, mode: 'plain' },
      // A proxy fault that took nothing touched no probe.
      { index: 3, kind: 'proxy', what: 'proxy', from: T0, to: T0 + 200_000, hits: 0 },
    ];
    const figures = probeFigures(
      [
        // 60 s long, of which 25 s after Kueue was back.
        { mode: 'kueue', from: T0 + 5_000, to: T0 + 65_000 },
        { mode: 'kueue', from: T0 + 70_000, to: T0 + 73_000 },
        // Overlaps the plain worker's kill only as a plain probe: 8 s after; as a Kueue one, its whole 10 s.
        { mode: 'plain', from: T0 + 100_000, to: T0 + 110_000 },
        { mode: 'kueue', from: T0 + 100_000, to: T0 + 110_000 },
      ],
      faults,
      OPTIONS,
    );
    expect(figures.kueue).toEqual({ count: 3, p50Ms: 10_000, maxMs: 60_000, maxAfterRecoveryMs: 25_000, windowMs: CHAOS_WINDOWS.probeMs.kueue });
    expect(figures.plain).toEqual({ count: 1, p50Ms: 10_000, maxMs: 10_000, maxAfterRecoveryMs: 8_000, windowMs: CHAOS_WINDOWS.probeMs.plain });
    expect(probeLine(figures)).toBe(
      `preflight probes completed: plain 1 (p50 10.0 s, max 10.0 s; after the last fault it rode out was back at most 8.0 s, the windows assume 20.0 s), kueue 3 (p50 10.0 s, max 60.0 s; after the last fault it rode out was back at most 25.0 s, the windows assume 40.0 s)`,
    );
  });
});
