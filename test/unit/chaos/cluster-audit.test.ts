// The MultiKueue run's leak audit: after the cleanup, anything of a lifecycle left on the manager
// or the worker cluster (a TrainJob, a runtime copy, a Workload) is a violation naming the
// lifecycle and the cluster; anything of no lifecycle too, unless it is a probe still in flight.
import { describe, expect, it } from 'vitest';
import { check } from '../../chaos/checker.js';
import { auditCleanup, mergeAudit, type CleanupState, type ClusterObjects } from '../../chaos/cluster-audit.js';
import type { FinalObject, LifecycleRecord } from '../../chaos/history.js';
import { CHAOS_WINDOWS } from '../../chaos/windows.js';

const READ_AT = 10_000_000;
const OPTIONS = { probeBoundMs: CHAOS_WINDOWS.probeBoundMs, boundMs: 150_000 };
const obj = (name: string, uid: string, extra: Partial<FinalObject> = {}): FinalObject => ({ name, uid, owners: [], deleting: false, ...extra });
const lifecycles: LifecycleRecord[] = [0, 1].map((index) => ({
  plan: { index, mode: 'kueue', shape: 'run', runtime: 'short', duplicated: [], pauseMs: 0, multiKueue: true },
  jobId: `j${index}`,
  submission: 1,
  name: `dj-j${index}-s1`,
}));
const empty = (cluster: string): ClusterObjects => ({ cluster, trainJobs: [], copies: [], workloads: [] });
const state = (manager: Partial<ClusterObjects>, worker: Partial<ClusterObjects>): CleanupState => ({
  clusters: [
    { ...empty('manager'), ...manager },
    { ...empty('worker-1'), ...worker },
  ],
  readAt: READ_AT,
  cleanupFrom: READ_AT - 60_000,
});

describe('the MultiKueue leak audit after the cleanup', () => {
  it('both clusters empty: one case per lifecycle and cluster, no violation', () => {
    expect(auditCleanup(lifecycles, state({}, {}), OPTIONS)).toEqual({ checked: 4, violations: [] });
  });

  it("a runtime copy the collector left on the worker cluster, and a lifecycle's TrainJob and Workload still on it, are each named with their lifecycle and cluster", () => {
    const audit = auditCleanup(lifecycles, state({}, { copies: [obj('dj-j0-s1', 'c0')], trainJobs: [obj('dj-j1-s1', 't1')], workloads: [obj('trainjob-dj-j1-s1-x2k4f', 'w1', { owners: ['t1'] })] }), OPTIONS);
    expect(audit.checked).toBe(4);
    expect(audit.violations).toEqual([
      { invariant: 'clusters-clean-after-cleanup', job: 0, detail: 'on worker-1, 60 s after the cleanup began (bound 150 s): runtime copy dj-j0-s1 (uid c0)' },
      { invariant: 'clusters-clean-after-cleanup', job: 1, detail: 'on worker-1, 60 s after the cleanup began (bound 150 s): TrainJob dj-j1-s1 (uid t1), Workload trainjob-dj-j1-s1-x2k4f (uid w1)' },
    ]);
  });

  it("something on the manager of no lifecycle is a leak; a probe's objects inside its bound are not, past it they are", () => {
    const probeJob = '0000000000dspatch7zzzzzzzz';
    const probe = (age: number): Partial<ClusterObjects> => ({
      trainJobs: [obj(`dj-${probeJob}-s1`, 'p', { jobId: probeJob, createdAt: READ_AT - age })],
      workloads: [obj(`trainjob-dj-${probeJob}-s1-abcde`, 'pw', { owners: ['p'] })],
    });
    expect(auditCleanup(lifecycles, state(probe(10_000), {}), OPTIONS).violations).toEqual([]);
    const late = auditCleanup(lifecycles, state(probe(OPTIONS.probeBoundMs + 1_000), {}), OPTIONS).violations;
    expect(late.map((v) => [v.job, v.detail])).toEqual([
      [undefined, expect.stringMatching(/^on manager, .*: TrainJob dj-0000000000dspatch7zzzzzzzz-s1 \(uid p\), of no lifecycle and no probe in flight$/)],
      [undefined, expect.stringMatching(/^on manager, .*: Workload trainjob-dj-0000000000dspatch7zzzzzzzz-s1-abcde \(uid pw\), of no lifecycle and no probe in flight$/)],
    ]);
    expect(auditCleanup(lifecycles, state({ copies: [obj('dj-lost-s1', 'l', { deleting: true })] }, {}), OPTIONS).violations.map((v) => v.detail)).toEqual([
      'on manager, 60 s after the cleanup began (bound 150 s): runtime copy dj-lost-s1 (uid l, being deleted), of no lifecycle and no probe in flight',
    ]);
  });

  it("merged into the run's report: its violations, its cases, and a violation when it checked fewer than the run's minimum (the audit never ran)", () => {
    const history = { seed: 1, lifecycles, calls: [], faults: [] };
    const final = { trainJobs: [], copies: [], workloads: [], jobSets: [], jobs: [], pods: [], running: [], finds: {} };
    const report = () => check(history, final, { callBoundMs: 30_000, windows: CHAOS_WINDOWS, workerClusters: ['worker-1'] });
    const clean = report();
    expect(clean.minimums['clusters-clean-after-cleanup']).toBe(4);
    mergeAudit(clean, auditCleanup(lifecycles, state({}, {}), OPTIONS), 2);
    expect(clean.checked['clusters-clean-after-cleanup']).toBe(4);
    expect(clean.violations.filter((v) => v.invariant === 'clusters-clean-after-cleanup')).toEqual([]);
    const none = report();
    mergeAudit(none, { checked: 0, violations: [] }, 2);
    expect(none.violations.filter((v) => v.invariant === 'clusters-clean-after-cleanup')).toEqual([
      { invariant: 'clusters-clean-after-cleanup', detail: 'checked 0 cases; a run of 2 lifecycles must check at least 4' },
    ]);
  });
});
