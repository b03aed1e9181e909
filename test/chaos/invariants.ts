// The chaos checker's invariants, and the fewest cases each must look at in a run (pure): an
// invariant that checked nothing proves nothing, so a run that checked fewer fails. The minimum is
// a function of the run's lifecycles (how many, of which shapes and modes, which calls sent twice),
// less what the 1 % of lifecycles allowed not to complete their shape would have given.
import { plannedCalls, shapeStops } from './ends.js';
import type { CallRecord, LifecycleRecord } from './history.js';

export const INVARIANTS = [
  'lifecycle-completes-shape',
  'answers-justified',
  'answers-agree',
  'answers-match-the-cluster',
  'one-trainjob-per-started-attempt',
  'nothing-without-a-start',
  'no-orphans',
  'find-agrees',
  'outcome-unknown-is-in-flight',
  'opened-jobs-reach-an-outcome',
  'stopped-jobs-are-gone',
  'no-stuck-workflows',
  'run-within-budget',
  // --multikueue only (0 cases otherwise): each job left to run ran on a worker cluster, and
  // nothing of any lifecycle is left on the manager or the worker cluster once cleanup is done.
  'ran-on-a-worker-cluster',
  'clusters-clean-after-cleanup',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

/** Judged after the run's cleanup (cluster-audit.ts), not by check(): its cases are counted there. */
export const AFTER_CLEANUP: ReadonlySet<Invariant> = new Set(['clusters-clean-after-cleanup']);
/** The clusters the MultiKueue audit reads: the manager and the one worker cluster. */
export const MULTIKUEUE_CLUSTERS = 2;

/** Invariants judged on the recorded calls alone: settling cannot change their verdict. */
export const RECORD_ONLY: ReadonlySet<Invariant> = new Set([
  'lifecycle-completes-shape',
  'answers-justified',
  'answers-agree',
  'answers-match-the-cluster',
  'outcome-unknown-is-in-flight',
  'run-within-budget',
  // Judged on the Watch's recorded Outcome.
  'ran-on-a-worker-cluster',
]);

/** The share of lifecycles that may end short of their shape, each justified: more fails the run. */
export const INCOMPLETE_SHARE = 0.01;
export const incompleteAllowed = (lifecycles: number) => Math.floor(lifecycles * INCOMPLETE_SHARE);

/** The cases each invariant looks at for one lifecycle that completed its shape. */
function casesOf(lifecycle: LifecycleRecord): Record<Exclude<Invariant, 'outcome-unknown-is-in-flight' | 'no-stuck-workflows' | 'run-within-budget'>, number> {
  const { shape, mode, multiKueue } = lifecycle.plan;
  const calls = plannedCalls(lifecycle).length;
  const stops = shapeStops(shape);
  return {
    'lifecycle-completes-shape': 1,
    // Each planned call's answers: at least one try each.
    'answers-justified': calls,
    'answers-agree': calls,
    'answers-match-the-cluster': calls,
    'one-trainjob-per-started-attempt': stops ? 0 : 1,
    'nothing-without-a-start': 1,
    // A finished job keeps its copy, JobSet and Job (and Workload); and its TrainJob's one copy is
    // counted. With MultiKueue the JobSet and Job are on the worker cluster: the manager keeps the
    // copy and the Workload.
    'no-orphans': stops ? 0 : multiKueue ? 3 : 4 + (mode === 'kueue' ? 1 : 0),
    'find-agrees': 1,
    'opened-jobs-reach-an-outcome': stops ? 0 : 1,
    'stopped-jobs-are-gone': stops ? 1 : 0,
    'ran-on-a-worker-cluster': multiKueue && !stops ? 1 : 0,
    // One case per cluster: nothing of its name left there.
    'clusters-clean-after-cleanup': multiKueue ? MULTIKUEUE_CLUSTERS : 0,
  };
}

/**
 * The minimum per invariant: the sum over lifecycles, less the allowed incomplete lifecycles times
 * the most one lifecycle gives; outcome-unknown-is-in-flight one per ErrOutcomeUnknown a Start
 * answered (the caller asks Find after each); no-stuck-workflows and run-within-budget one for the run.
 */
export function minimumCases(lifecycles: readonly LifecycleRecord[], calls: readonly CallRecord[]): Record<Invariant, number> {
  const per = lifecycles.map(casesOf);
  const allowed = incompleteAllowed(lifecycles.length);
  const min = Object.fromEntries(INVARIANTS.map((name) => [name, 0])) as Record<Invariant, number>;
  for (const name of Object.keys(per[0] ?? {}) as (keyof ReturnType<typeof casesOf>)[]) {
    const values = per.map((p) => p[name]);
    min[name] = Math.max(0, values.reduce((a, b) => a + b, 0) - allowed * Math.max(...values));
  }
  min['outcome-unknown-is-in-flight'] = calls.filter((c) => c.op === 'start' && !c.answer.ok && c.answer.type === 'ErrOutcomeUnknown').length;
  min['no-stuck-workflows'] = 1;
  min['run-within-budget'] = 1;
  return min;
}
