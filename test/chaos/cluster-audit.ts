// The MultiKueue run's leak audit (pure): once the lifecycles have ended and the run has cleaned
// up after them (each TrainJob left on the manager stopped, as a caller done with it would), the
// manager and the worker cluster must hold no TrainJob, runtime copy or Workload of the run's
// namespace within the audit's bound. What is left then is a leak: of a lifecycle (one case per
// lifecycle and cluster), or of none. Stop deletes the manager's TrainJob (and with it the
// manager's copy and Workload); Kueue's MultiKueue deletes its objects on the worker cluster; the
// worker's copy collector deletes dispatch's copies there (docs/multikueue.md). A preflight probe
// still inside its own bound is named, not judged, as in check().
import { isProbeJobId } from '../../src/core/start/probe.js';
import type { CheckReport, Violation } from './checker.js';
import type { FinalObject, LifecycleRecord } from './history.js';
import type { Invariant } from './invariants.js';

/** What one cluster holds of the run's namespace after the cleanup. */
export interface ClusterObjects {
  /** "manager", or the worker cluster's name. */
  cluster: string;
  trainJobs: FinalObject[];
  /** Runtime copies: dispatch's (labelled) only. */
  copies: FinalObject[];
  workloads: FinalObject[];
}

export interface CleanupState {
  clusters: ClusterObjects[];
  /** When the objects were read, and when the cleanup began (the calls' clock). */
  readAt: number;
  cleanupFrom: number;
}

export interface CleanupAudit {
  checked: number;
  violations: Violation[];
}

const INVARIANT: Invariant = 'clusters-clean-after-cleanup';

/** Whether `o` is of the lifecycle named `name`: its TrainJob and copy carry the name, Kueue's Workload `trainjob-<name>-<hash>`. */
const ofName = (o: FinalObject, name: string) => o.name === name || o.name.startsWith(`trainjob-${name}-`);

export function auditCleanup(lifecycles: readonly LifecycleRecord[], state: CleanupState, options: { probeBoundMs: number; boundMs: number }): CleanupAudit {
  const audit: CleanupAudit = { checked: 0, violations: [] };
  const after = `${((state.readAt - state.cleanupFrom) / 1000).toFixed(0)} s after the cleanup began (bound ${options.boundMs / 1000} s)`;
  const describe = (kind: string, o: FinalObject) => `${kind} ${o.name} (uid ${o.uid}${o.deleting ? ', being deleted' : ''})`;
  for (const cluster of state.clusters) {
    const all = [
      ...cluster.trainJobs.map((o) => ['TrainJob', o] as const),
      ...cluster.copies.map((o) => ['runtime copy', o] as const),
      ...cluster.workloads.map((o) => ['Workload', o] as const),
    ];
    // A probe's TrainJob (its job-id label) made within its bound of the read, and what it owns, is in flight.
    const inFlight = new Set(
      cluster.trainJobs
        .filter((t) => t.jobId !== undefined && isProbeJobId(t.jobId) && t.createdAt !== undefined && state.readAt - t.createdAt <= options.probeBoundMs)
        .map((t) => t.uid),
    );
    const probeInFlight = (o: FinalObject) =>
      inFlight.has(o.uid) || o.owners.some((uid) => inFlight.has(uid)) || (o.jobId !== undefined && isProbeJobId(o.jobId) && o.createdAt !== undefined && state.readAt - o.createdAt <= options.probeBoundMs);
    const attributed = new Set<FinalObject>();
    for (const lifecycle of lifecycles) {
      const left = all.filter(([, o]) => ofName(o, lifecycle.name));
      for (const [, o] of left) attributed.add(o);
      audit.checked += 1;
      if (left.length > 0) {
        audit.violations.push({
          invariant: INVARIANT,
          job: lifecycle.plan.index,
          detail: `on ${cluster.cluster}, ${after}: ${left.map(([kind, o]) => describe(kind, o)).join(', ')}`,
        });
      }
    }
    for (const [kind, o] of all) {
      if (attributed.has(o) || probeInFlight(o)) continue;
      audit.violations.push({ invariant: INVARIANT, detail: `on ${cluster.cluster}, ${after}: ${describe(kind, o)}, of no lifecycle and no probe in flight` });
    }
  }
  return audit;
}

/** Adds the audit to the run's report: its cases and violations, and a violation when it checked fewer cases than the run's minimum. */
export function mergeAudit(report: CheckReport, audit: CleanupAudit, lifecycles: number): void {
  report.checked[INVARIANT] += audit.checked;
  report.violations.push(...audit.violations);
  const min = report.minimums[INVARIANT];
  if (report.checked[INVARIANT] < min) report.violations.push({ invariant: INVARIANT, detail: `checked ${report.checked[INVARIANT]} cases; a run of ${lifecycles} lifecycles must check at least ${min}` });
}
