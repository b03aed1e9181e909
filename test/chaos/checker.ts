// The chaos run's checker (pure): the invariants that must hold over a run's recorded calls and the
// cluster and Temporal once everything settled, whatever faults came in between. Each invariant
// counts what it checked, so that a report of no violations also says how much was looked at.
import type { Outcome, TrainJobState } from '../../src/model/lifecycle.js';
import type { StartResult } from '../../src/model/results.js';
import type { Answer, CallRecord, FinalObject, FinalState, LifecycleRecord, RunHistory } from './history.js';
import type { Operation } from './schedule.js';

export const INVARIANTS = [
  'every-lifecycle-ends',
  'no-impossible-refusals',
  'answers-agree',
  'one-trainjob-per-started-attempt',
  'nothing-without-a-start',
  'no-orphans',
  'find-agrees',
  'outcome-unknown-is-in-flight',
  'opened-jobs-reach-an-outcome',
  'stopped-jobs-are-gone',
  'no-stuck-workflows',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Violation {
  invariant: Invariant;
  /** The lifecycle's index, when the violation is one job's. */
  job?: number;
  detail: string;
  /**
   * An object whose owners are all gone: the garbage collector's to delete, not the product's. The
   * run gives the collector a fresh start (kube-controller-manager restarted) before calling it one.
   */
  collectible?: true;
}

export interface CheckReport {
  /** How many cases each invariant looked at. */
  checked: Record<Invariant, number>;
  violations: Violation[];
}

/** Refusals no fault can explain: the request and the runtime were fine. (ErrReadOnly is a gate not proven yet: retried later.) */
const IMPOSSIBLE = new Set(['ErrInvalid', 'ErrUnsupported']);

/**
 * Step 1's refusal for the start gate: the contract (§8) answers ErrUnsupported while the latest
 * preflight probe has not succeeded, whatever made it fail, and a fault can make it fail (a probe
 * Start caught by a Trainer or API server restart). So it is the contract's answer, not an
 * impossible one; anywhere else ErrUnsupported still is.
 */
export const isStartGateRefusal = (answer: Answer): boolean =>
  !answer.ok && answer.type === 'ErrUnsupported' && answer.step === 1 && answer.message.startsWith('start: ');

const okValues = <T>(records: CallRecord[]): T[] =>
  records.flatMap((r) => (r.answer.ok ? [r.answer.value as T] : []));

/** The last answer of each copy of an operation: what the caller was left with. */
function lastAnswers(records: CallRecord[], op: Operation): Answer[] {
  const last = new Map<number, CallRecord>();
  for (const r of records) if (r.op === op && (last.get(r.copy)?.try ?? 0) <= r.try) last.set(r.copy, r);
  return [...last.values()].map((r) => r.answer);
}

const describeAnswer = (a: Answer) => (a.ok ? 'ok' : `${a.type}: ${a.message}`);

export function check(history: RunHistory, final: FinalState, options: { callBoundMs: number }): CheckReport {
  const checked = Object.fromEntries(INVARIANTS.map((name) => [name, 0])) as Record<Invariant, number>;
  const violations: Violation[] = [];
  const judge = (invariant: Invariant, ok: boolean, detail: () => string, job?: number, collectible?: boolean) => {
    checked[invariant] += 1;
    if (!ok) violations.push({ invariant, detail: detail(), ...(job === undefined ? {} : { job }), ...(collectible ? { collectible: true as const } : {}) });
  };

  const callsOf = new Map<number, CallRecord[]>();
  for (const call of history.calls) callsOf.set(call.job, [...(callsOf.get(call.job) ?? []), call]);
  const live = (objects: FinalObject[]) => objects.filter((o) => !o.deleting);
  const trainJobUids = new Set(final.trainJobs.map((t) => t.uid));

  for (const lifecycle of history.lifecycles) {
    const job = lifecycle.plan.index;
    const calls = callsOf.get(job) ?? [];
    checkLifecycle(lifecycle, calls, final, options, judge);
  }

  // Zero orphans: each kind's owner is there, and each TrainJob has exactly its one copy.
  const owned = (kind: string, objects: FinalObject[], owners: Set<string>, ownerKind: string) => {
    for (const o of objects) {
      const detail = () => `${kind} ${o.name} (uid ${o.uid}${o.deleting ? ', being deleted' : ''}) has no ${ownerKind} among the cluster's: owners [${o.owners.join(', ')}]`;
      judge('no-orphans', o.owners.some((uid) => owners.has(uid)), detail, undefined, o.owners.length > 0);
    }
  };
  owned('runtime copy', final.copies, trainJobUids, 'TrainJob');
  owned('Workload', final.workloads, trainJobUids, 'TrainJob');
  owned('JobSet', final.jobSets, trainJobUids, 'TrainJob');
  owned('Job', final.jobs, new Set(final.jobSets.map((j) => j.uid)), 'JobSet');
  owned('pod', final.pods, new Set(final.jobs.map((j) => j.uid)), 'Job');
  for (const trainJob of live(final.trainJobs)) {
    const copies = final.copies.filter((c) => c.owners.includes(trainJob.uid));
    judge('no-orphans', copies.length === 1, () => `TrainJob ${trainJob.name} owns ${copies.length} runtime copies, not 1`);
  }

  for (const workflow of final.running) {
    judge('no-stuck-workflows', false, () => `${workflow.type} ${workflow.workflowId} still runs after the run settled`);
  }
  checked['no-stuck-workflows'] += 1;
  return { checked, violations };
}

type Judge = (invariant: Invariant, ok: boolean, detail: () => string, job?: number) => void;

function checkLifecycle(lifecycle: LifecycleRecord, calls: CallRecord[], final: FinalState, options: { callBoundMs: number }, judge: Judge): void {
  const job = lifecycle.plan.index;
  const { name } = lifecycle;
  const of = (op: Operation | 'find') => calls.filter((c) => c.op === op);
  const trainJobs = final.trainJobs.filter((t) => t.name === name && !t.deleting);

  judge('every-lifecycle-ends', lifecycle.ended?.how !== 'gave-up', () => `gave up at ${lifecycle.ended?.op}: ${lifecycle.ended?.reason}`, job);

  for (const call of calls) {
    if (call.answer.ok || call.answer.type === 'untyped') continue;
    const { type, message } = call.answer;
    judge('no-impossible-refusals', !IMPOSSIBLE.has(type) || isStartGateRefusal(call.answer), () => `${call.op} answered ${type}: ${message}`, job);
  }

  // Every answer that names the TrainJob names the same one.
  const starts = okValues<StartResult>(of('start'));
  const uids = new Set(starts.map((s) => s.uid));
  judge('answers-agree', uids.size <= 1, () => `Starts answered ${uids.size} different UIDs: ${[...uids].join(', ')}`, job);
  const startUid = starts[0]?.uid;
  for (const op of ['open', 'hold', 'release', 'stop', 'watch'] as const) {
    for (const value of okValues<TrainJobState | Outcome>(of(op))) {
      judge('answers-agree', value.ref.uid === startUid, () => `${op} answered for UID ${value.ref.uid}, the Start for ${startUid}`, job);
    }
  }

  const stopped = okValues(of('stop')).length > 0;
  if (startUid !== undefined && !stopped) {
    judge('one-trainjob-per-started-attempt', trainJobs.length === 1 && trainJobs[0]!.uid === startUid, () => `started as UID ${startUid}; the cluster has ${trainJobs.length} TrainJob(s) ${name}: [${trainJobs.map((t) => t.uid).join(', ')}]`, job);
  }
  if (startUid === undefined) {
    const copies = final.copies.filter((c) => c.name === name);
    judge('nothing-without-a-start', trainJobs.length === 0 && copies.length === 0, () => `no Start answered a TrainJob (last: ${lastAnswers(calls, 'start').map(describeAnswer).join('; ') || 'none'}), yet ${trainJobs.length} TrainJob(s) and ${copies.length} copies of ${name} remain`, job);
  }

  // Find, asked once everything settled, agrees with the cluster.
  const found = final.finds[job];
  const expected = trainJobs.length === 1 ? `Present ${trainJobs[0]!.uid}` : trainJobs.length === 0 ? 'Absent' : `${trainJobs.length} TrainJobs`;
  const answered = found === undefined ? 'not asked' : 'error' in found ? `error ${found.error}` : found.state === 'Present' ? `Present ${found.ref.uid}` : found.state;
  judge('find-agrees', answered === expected, () => `Find answered ${answered}; the cluster has ${expected}`, job);

  // After ErrOutcomeUnknown, Find answers InFlight for CallBound.
  const unknowns = of('start').filter((c) => !c.answer.ok && c.answer.type === 'ErrOutcomeUnknown');
  for (const find of of('find')) {
    const after = unknowns.find((u) => find.invokedAt >= u.answeredAt && find.answeredAt - u.answeredAt < options.callBoundMs);
    if (!after || !find.answer.ok) continue;
    const state = (find.answer.value as { state: string }).state;
    judge('outcome-unknown-is-in-flight', state === 'InFlight', () => `Find answered ${state} ${find.invokedAt - after.answeredAt} ms after the Start's ErrOutcomeUnknown`, job);
  }

  const watched = okValues<Outcome>(of('watch'));
  // A retried Open that finds the job already finished is refused ("it has Succeeded": the contract
  // refuses Open on a finished job), yet the first Open did open it.
  const opened = of('open').some((c) => c.answer.ok || (c.answer.type === 'ErrRejected' && c.answer.message.includes('has Succeeded')));
  const shapeStops = lifecycle.plan.shape.startsWith('stop') || lifecycle.plan.shape === 'hold-stop';
  if (startUid !== undefined && opened && !shapeStops) {
    const conditions = trainJobs[0]?.conditions ?? [];
    judge('opened-jobs-reach-an-outcome', watched.some((o) => o.phase === 'Succeeded') && conditions.includes('Complete'), () => `opened, never stopped: Watch answered [${watched.map((o) => `${o.phase} ${o.reason}`).join('; ') || 'nothing'}], the TrainJob's conditions [${conditions.join(', ')}]`, job);
  }
  if (stopped) {
    judge('stopped-jobs-are-gone', trainJobs.length === 0 && watched.every((o) => o.phase !== 'Failed'), () => `stopped; the cluster has ${trainJobs.length} TrainJob(s) ${name}, Watch answered [${watched.map((o) => o.phase).join(', ')}]`, job);
  }
}
