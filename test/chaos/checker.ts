// The chaos run's checker (pure): the invariants that must hold over a run's recorded calls and the
// cluster and Temporal once everything settled, whatever faults came in between. It demands
// progress, not only consistency: every answer is the one its lifecycle's shape intends or a refusal
// the record justifies (justify.ts), every lifecycle completes its shape or the record says why
// (ends.ts), and each invariant checks at least its minimum of cases (invariants.ts).
import type { Outcome, TrainJobState } from '../../src/model/operations.js';
import type { StartResult } from '../../src/model/results.js';
import { finishedPhase, judgeOk, judgeShape, shapeStops } from './ends.js';
import type { Answer, CallRecord, FaultRecord, FinalObject, FinalState, LifecycleRecord, RunHistory } from './history.js';
import { AFTER_CLEANUP, incompleteAllowed, INVARIANTS, minimumCases, RECORD_ONLY, type Invariant } from './invariants.js';
import { isProbeJobId } from '../../src/core/start/probe.js';
import { justifyRefusal, unjustifiedBecause, workersStart, type JudgeOptions, type Justification } from './justify.js';
import type { Mode, Operation, Shape } from './schedule.js';

export { INVARIANTS, RECORD_ONLY, type Invariant };
export type { JudgeOptions };

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

/** A lifecycle that did not complete its shape, and what the record says about why. */
export interface IncompleteLifecycle {
  job: number;
  shape: Shape;
  mode: Mode;
  short: string[];
  justified: Justification[];
}

/** A refusal the contract allows, with the rule and what in the record triggered it. */
export interface JustifiedRefusal extends Justification {
  job: number;
  mode: Mode;
  op: Operation;
  answer: string;
}

export interface CheckReport {
  /** How many cases each invariant looked at, and the fewest it had to. */
  checked: Record<Invariant, number>;
  minimums: Record<Invariant, number>;
  violations: Violation[];
  /** Lifecycles that completed their shape, and those that did not. */
  completed: number;
  incomplete: IncompleteLifecycle[];
  justified: JustifiedRefusal[];
}

const okValues = <T>(records: CallRecord[]): T[] =>
  records.flatMap((r) => (r.answer.ok ? [r.answer.value as T] : []));

/** The last answer of each copy of an operation: what the caller was left with. */
function lastAnswers(records: CallRecord[], op: Operation): Answer[] {
  const last = new Map<number, CallRecord>();
  for (const r of records) if (r.op === op && (last.get(r.copy)?.try ?? 0) <= r.try) last.set(r.copy, r);
  return [...last.values()].map((r) => r.answer);
}

const describeAnswer = (a: Answer) => (a.ok ? 'ok' : `${a.type}${a.step ? ` at step ${a.step}` : ''}: ${a.message}`);

export function check(history: RunHistory, final: FinalState, options: JudgeOptions): CheckReport {
  const checked = Object.fromEntries(INVARIANTS.map((name) => [name, 0])) as Record<Invariant, number>;
  const report: CheckReport = { checked, minimums: minimumCases(history.lifecycles, history.calls), violations: [], completed: 0, incomplete: [], justified: [] };
  const judge: Judge = (invariant, ok, detail, job, collectible) => {
    checked[invariant] += 1;
    if (!ok) report.violations.push({ invariant, detail: detail(), ...(job === undefined ? {} : { job }), ...(collectible ? { collectible: true as const } : {}) });
  };

  const callsOf = new Map<number, CallRecord[]>();
  for (const call of history.calls) callsOf.set(call.job, [...(callsOf.get(call.job) ?? []), call]);
  const live = (objects: FinalObject[]) => objects.filter((o) => !o.deleting);
  const trainJobUids = new Set(final.trainJobs.map((t) => t.uid));
  const faults = [...(history.faults ?? []), ...(history.workersStarted ? [workersStart(history.workersStarted)] : [])];

  for (const lifecycle of history.lifecycles) {
    const calls = callsOf.get(lifecycle.plan.index) ?? [];
    judgeAnswers(lifecycle, calls, faults, options, judge, report);
    checkLifecycle(lifecycle, calls, final, options, judge);
  }
  const allowed = incompleteAllowed(history.lifecycles.length);
  judge('lifecycle-completes-shape', report.incomplete.length <= allowed, () => `${report.incomplete.length} of ${history.lifecycles.length} lifecycles did not complete their shape; at most ${allowed} (1 %) may`);

  // A probe's objects (its JobID's prefix, docs/start.md) made less than a probe's bound before the
  // final read may be a probe still in flight, halfway through its steps: named, not judged.
  const probeAge = (o: FinalObject) => (o.jobId !== undefined && isProbeJobId(o.jobId) ? (final.readAt !== undefined && o.createdAt !== undefined ? final.readAt - o.createdAt : Infinity) : undefined);
  const inFlightProbe = (o: FinalObject) => (probeAge(o) ?? Infinity) <= options.windows.probeBoundMs;
  // Zero orphans: each kind's owner is there, and each TrainJob has exactly its one copy.
  const owned = (kind: string, objects: FinalObject[], owners: Set<string>, ownerKind: string) => {
    for (const o of objects.filter((x) => !inFlightProbe(x))) {
      const detail = () => `${kind} ${o.name} (uid ${o.uid}${o.deleting ? ', being deleted' : ''}) has no ${ownerKind} among the cluster's: owners [${o.owners.join(', ')}]`;
      judge('no-orphans', o.owners.some((uid) => owners.has(uid)), detail, undefined, o.owners.length > 0);
    }
  };
  owned('runtime copy', final.copies, trainJobUids, 'TrainJob');
  owned('Workload', final.workloads, trainJobUids, 'TrainJob');
  owned('JobSet', final.jobSets, trainJobUids, 'TrainJob');
  owned('Job', final.jobs, new Set(final.jobSets.map((j) => j.uid)), 'JobSet');
  owned('pod', final.pods, new Set(final.jobs.map((j) => j.uid)), 'Job');
  for (const trainJob of live(final.trainJobs).filter((t) => !inFlightProbe(t))) {
    const copies = final.copies.filter((c) => c.owners.includes(trainJob.uid));
    judge('no-orphans', copies.length === 1, () => `TrainJob ${trainJob.name} owns ${copies.length} runtime copies, not 1`);
  }
  // Every dispatch object left is a lifecycle's (judged above and per lifecycle) or named here: a
  // probe's still inside its probe's bound. Anything else (a probe's left past it, a lost attempt's
  // under another name) is a leak, whatever owns it. What hangs off such a TrainJob (its Workload,
  // JobSet, Jobs, pods) is named by its owner chain: the TrainJob's violation stands for it.
  const names = new Set(history.lifecycles.map((l) => l.name));
  const unnamed = (kind: string, objects: FinalObject[]) => {
    for (const o of objects.filter((x) => x.managed !== false && !names.has(x.name))) {
      const ageMs = probeAge(o);
      const why =
        ageMs === undefined
          ? 'of no lifecycle and no probe'
          : `a probe's, ${ageMs === Infinity ? 'of unknown age' : `created ${(ageMs / 1000).toFixed(0)} s before the final read`}, past its probe's bound of ${options.windows.probeBoundMs / 1000} s`;
      judge('no-orphans', inFlightProbe(o), () => `${kind} ${o.name} (uid ${o.uid}${o.deleting ? ', being deleted' : ''}) carries dispatch's label and is left: ${why}`);
    }
  };
  unnamed('TrainJob', final.trainJobs);
  unnamed('runtime copy', final.copies);

  const { budget } = history;
  judge('run-within-budget', budget?.exceededAt === undefined, () => `the lifecycles outran the run's budget of ${budget!.ms / 1000} s and were given up ${((budget!.exceededAt! - (history.ran?.from ?? budget!.exceededAt!)) / 1000).toFixed(0)} s into the run`);

  for (const workflow of final.running) {
    judge('no-stuck-workflows', false, () => `${workflow.type} ${workflow.workflowId} still runs after the run settled`);
  }
  checked['no-stuck-workflows'] += 1;

  // An invariant that looked at fewer cases than the run's size demands proves too little (the
  // cleanup audit's are counted where it runs: cluster-audit.ts).
  for (const name of INVARIANTS.filter((n) => !AFTER_CLEANUP.has(n))) {
    const [got, min] = [checked[name], report.minimums[name]];
    if (got < min) report.violations.push({ invariant: name, detail: `checked ${got} cases; a run of ${history.lifecycles.length} lifecycles must check at least ${min}` });
  }
  return report;
}

type Judge = (invariant: Invariant, ok: boolean, detail: () => string, job?: number, collectible?: boolean) => void;

/** Every answer is the one its shape intends or a justified refusal; the lifecycle completes its shape, or the record says why not. */
function judgeAnswers(lifecycle: LifecycleRecord, calls: CallRecord[], faults: readonly FaultRecord[], options: JudgeOptions, judge: Judge, report: CheckReport): void {
  const job = lifecycle.plan.index;
  const { shape, mode } = lifecycle.plan;
  for (const call of calls) {
    if (call.op === 'find') continue;
    const label = `${call.op}${call.copy ? ` (copy ${call.copy})` : ''} try ${call.try}`;
    if (call.answer.ok) {
      const judged = judgeOk(shape, call, calls);
      judge('answers-justified', judged === 'intended' || typeof judged !== 'string', () => `${label}: ${judged as string}`, job);
      continue;
    }
    const why = justifyRefusal(call, calls, faults, options, mode);
    const answer = describeAnswer(call.answer);
    judge('answers-justified', why !== undefined, () => `${label} (${mode}) answered ${answer}; ${unjustifiedBecause(call, options, mode)}`, job);
    if (why) report.justified.push({ job, mode, op: call.op, answer, ...why });
  }
  const verdict = judgeShape(lifecycle, calls, faults, options);
  judge('lifecycle-completes-shape', verdict.unjustified.length === 0, () => `${shape} (${mode}) did not complete: ${verdict.unjustified.join('; ')}`, job);
  if (verdict.short.length === 0) report.completed += 1;
  else report.incomplete.push({ job, shape, mode, short: verdict.short, justified: verdict.justified });
}

/** Whether an ok answer agrees with what an admin read found right after it. */
function matchesSeen(call: CallRecord, shape: Shape): string | undefined {
  const seen = call.seen!;
  const there = seen.uid === undefined ? 'no TrainJob of that name' : `UID ${seen.uid}${seen.deleting ? ' (being deleted)' : ''}${seen.finished ? `, ${seen.finished}` : ''}`;
  if (call.op === 'start') {
    const uid = (call.answer as { value: StartResult }).value.uid;
    return seen.uid === uid ? undefined : `Start answered UID ${uid}; right after, the cluster had ${there}`;
  }
  const value = (call.answer as { value: TrainJobState | Outcome }).value;
  const present = seen.uid === value.ref.uid;
  const wrong = () => `${call.op} answered ${value.phase} for UID ${value.ref.uid}; right after, the cluster had ${there}`;
  if (value.phase === 'Absent') return present && !seen.deleting ? wrong() : undefined;
  // Watch runs beside Stop: a job it saw finish may be gone by the time of the read.
  if (!present) return call.op === 'watch' && shapeStops(shape) ? undefined : wrong();
  if (value.phase === 'Succeeded' && seen.finished !== 'Complete') return wrong();
  if (value.phase === 'Failed' && seen.finished !== 'Failed') return wrong();
  return undefined;
}

function checkLifecycle(lifecycle: LifecycleRecord, calls: CallRecord[], final: FinalState, options: JudgeOptions, judge: Judge): void {
  const job = lifecycle.plan.index;
  const { name } = lifecycle;
  const { shape } = lifecycle.plan;
  const of = (op: Operation | 'find') => calls.filter((c) => c.op === op);
  const trainJobs = final.trainJobs.filter((t) => t.name === name && !t.deleting);

  // Every answer that names the TrainJob names the one the first Start answered.
  const startUid = okValues<StartResult>(of('start'))[0]?.uid;
  for (const call of calls) {
    if (!call.answer.ok || call.op === 'find') continue;
    const value = call.answer.value as StartResult | TrainJobState | Outcome;
    const uid = 'ref' in value && typeof value.ref === 'object' ? value.ref.uid : (value as StartResult).uid;
    judge('answers-agree', uid === startUid, () => `${call.op} answered for UID ${uid}, the first Start for ${startUid}`, job);
  }

  // Every ok answer agrees with the cluster as an admin read found it right after.
  for (const call of calls) {
    if (!call.answer.ok || call.op === 'find' || !call.seen) continue;
    const wrong = matchesSeen(call, shape);
    judge('answers-match-the-cluster', wrong === undefined, () => wrong!, job);
  }

  const stops = shapeStops(shape);
  if (startUid !== undefined && !stops) {
    judge('one-trainjob-per-started-attempt', trainJobs.length === 1 && trainJobs[0]!.uid === startUid, () => `started as UID ${startUid}; the cluster has ${trainJobs.length} TrainJob(s) ${name}: [${trainJobs.map((t) => t.uid).join(', ')}]`, job);
  }
  // Nothing of the job's name but what its Start answered.
  const copies = final.copies.filter((c) => c.name === name);
  judge(
    'nothing-without-a-start',
    trainJobs.every((t) => t.uid === startUid) && (startUid !== undefined || copies.length === 0),
    () => `the Starts answered ${startUid ?? 'no TrainJob'} (last: ${lastAnswers(calls, 'start').map(describeAnswer).join('; ') || 'none'}), yet the cluster has TrainJob(s) [${trainJobs.map((t) => t.uid).join(', ')}] and ${copies.length} copies of ${name}`,
    job,
  );

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
  if (startUid !== undefined && !stops) {
    const conditions = trainJobs[0]?.conditions ?? [];
    const phase = finishedPhase(shape);
    const condition = phase === 'Failed' ? 'Failed' : 'Complete';
    judge('opened-jobs-reach-an-outcome', watched.some((o) => o.phase === phase) && conditions.includes(condition), () => `opened, never stopped: Watch answered [${watched.map((o) => `${o.phase} ${o.reason}`).join('; ') || 'nothing'}], the TrainJob's conditions [${conditions.join(', ')}]`, job);
  }
  // MultiKueue: the job ran on a worker cluster (the Outcome names it: the Workload's status.clusterName),
  // and a failed one's Outcome carries the exit code or says why it could not be read (docs/multikueue.md).
  if (lifecycle.plan.multiKueue && startUid !== undefined && !stops) {
    const ended = watched.find((o) => o.phase === finishedPhase(shape));
    const clusters = options.workerClusters ?? [];
    const ranThere = ended?.cluster !== undefined && clusters.includes(ended.cluster);
    const exitCodeSaid = ended?.phase !== 'Failed' || (ended.exitCode !== undefined ? ended.exitCode === options.failExitCode : /exit code not read/.test(ended.message));
    judge(
      'ran-on-a-worker-cluster',
      ranThere && exitCodeSaid,
      () => `Watch's Outcome ${ended ? `${ended.phase}, cluster ${ended.cluster ?? 'none'}, exit code ${ended.exitCode ?? 'none'} (${ended.message})` : 'never came'}; the run's worker clusters: [${clusters.join(', ')}]${ranThere ? `: a Failed Outcome carries exit code ${options.failExitCode ?? 'unknown'} or says why it could not be read` : ''}`,
      job,
    );
  }
  if (startUid !== undefined && stops) {
    judge('stopped-jobs-are-gone', trainJobs.length === 0 && watched.every((o) => o.phase !== 'Failed'), () => `stopped; the cluster has ${trainJobs.length} TrainJob(s) ${name}, Watch answered [${watched.map((o) => o.phase).join(', ')}]`, job);
  }
}
