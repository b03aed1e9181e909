// Watch (docs/contract.md §9): one heartbeating activity that checks a started TrainJob every few
// seconds until it has completed, failed or gone. Its checks share lists with every other check of
// the worker (batched-lists.ts), so 1,000 Watches cost a few API requests a second. It returns
// early when the phase changes, so the workflow can show it (DispatchPhase), and after a slice of
// time, so a retry or a new worker resumes from a recent point.
//
// An API that does not answer never ends a Watch (docs/contract.md §9a): every check, the first read
// and the pod list included, is tried again until it is answered. It is not silent: the heartbeat
// details say since when, each unanswered call counts in dispatch_watch_unanswered_calls_total, and
// the call returns once the silence has lasted timeouts.call (and again once the API answers), so
// that the workflow's current details say "the API has not answered since <time>" while it lasts.
import { Context } from '@temporalio/activity';
import type { Config } from '../model/config.js';
import { Labels } from '../model/constants.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { DispatchError } from '../model/errors.js';
import type { TrainJob, Workload } from '../model/kube.js';
import type { Outcome, Phase, TrainJobRef, TrainJobState } from '../model/operations.js';
import type { Pod } from '../model/kube.js';
import { watchOutcome } from '../core/operations/watch-outcome.js';
import { jobKeyOf } from '../core/operations/node-failures.js';
import { podsSource, waitsForWorkerPods, withoutExitCode } from '../core/operations/worker-cluster.js';
import { MultiKueueClusterReads, withWorkerCluster, workerPodsOf, type WorkerPods } from './worker-cluster-reads.js';
import { identityRefusals } from '../core/operations/identity.js';
import { trimTrainJob, trimWorkload } from '../core/objects/observed-trim.js';
import { stateOf } from '../core/operations/phase.js';
import { workloadOfTrainJob } from '../core/objects/workloads.js';
import { type Observed } from '../core/operations/observed.js';
import { untilChanged, type SharedLists } from '../kube/shared-lists.js';
import { callsFor, sleepOrWake, type ActivityEnv } from './context.js';
import type { WATCH_CALLS } from '../observability/metrics.js';
import { describeRefusal, type KubeAnswer } from '../kube/call.js';
import { refused, type KubeRefusal } from '../kube/read-trainjob.js';
import { TRAINJOBS, workloads, type ObjectCalls } from '../kube/objects.js';

/** How often a Watch checks its TrainJob. */
export const WATCH_POLL_MS = 3_000;

export interface WatchInput {
  config: Config;
  ref: TrainJobRef;
  /** The phase the workflow last showed: a check that reads another returns at once. */
  shownPhase?: Phase;
  /** How long this call watches before it returns with the state, for the workflow to call again. */
  sliceMs: number;
  /** What the workflow shows: the API has not answered since then (ISO time). */
  unansweredSince?: string;
}

export type WatchAnswer =
  | { outcome: Outcome; checks: number }
  | { state: TrainJobState; checks: number }
  /** The API has not answered since `since` (for timeouts.call at least): the Watch goes on. */
  | { unanswered: { since: string; problem: string }; checks: number }
  /** The TrainJob of the ref's UID is not dispatch's (ErrRejected), in the phase read. */
  | { refused: string[]; state: TrainJobState; checks: number };

interface WatchProgress {
  checks: number;
  phase?: Phase;
  reasons: string[];
  /** The API has not answered since then (ISO time). */
  unansweredSince?: string;
}

/** The calls of a Watch that may go unanswered, as the metric labels them. */
export type WatchCall = (typeof WATCH_CALLS)[number];

/**
 * What a Watch reports of a call the API left unanswered, or answered with a refusal it waits out
 * (`status`): Prometheus counters in the worker.
 */
export type CountUnanswered = (call: WatchCall, status?: number) => void;

/**
 * A call the API did not answer (kubeCall's retryable failure, or the batched lists' plain error), or
 * answered with a definite refusal that may pass (`status`): a restarted API server answers 403
 * until its authorizer has synced, and 5xx-like Statuses while it settles. A Watch ends only with an
 * Outcome (docs/contract.md §9c), so it waits both out alike, saying why and since when.
 */
export class WaitedOut extends Error {
  constructor(
    readonly call: WatchCall,
    cause: unknown,
    readonly status?: number,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export const unansweredAs =
  (call: WatchCall) =>
  (error: unknown): never => {
    throw error instanceof DispatchError ? error : new WaitedOut(call, error);
  };

/** A definite refusal of a Watch's call, to be waited out (WaitedOut with its status), naming what was asked. */
export const refusedCall = (ref: TrainJobRef, call: WatchCall, what: string, answer: KubeRefusal) =>
  new WaitedOut(call, `${refused(ref, what, answer).reasons.join('; ')} (waited out: the Watch ends only with an outcome)`, answer.status);

/**
 * A Watch's read of its TrainJob by name: the answer that ends the Watch at once (not dispatch's,
 * or the name now another UID's), or the ref's TrainJob, trimmed (undefined when it is gone).
 */
export async function firstRead(calls: ObjectCalls, config: Config, ref: TrainJobRef, checks: number): Promise<{ answer: WatchAnswer } | { trainJob?: TrainJob }> {
  const answer = await calls.get(TRAINJOBS, ref.namespace, ref.name).catch(unansweredAs('read'));
  if (answer.answered === 'definite' && answer.status !== 404) throw refusedCall(ref, 'read', `reading TrainJob ${ref.namespace}/${ref.name}`, answer);
  const read = answer.answered === 'ok' ? trimTrainJob(answer.value as TrainJob) : undefined;
  const refusals = identityRefusals('watch', ref, { trainJob: read, config });
  if (refusals.length > 0) return { answer: { refused: refusals, state: stateOf(ref, { trainJob: read, config }), checks } };
  // Another UID under the name is not the ref's TrainJob: it is gone, and the outcome says whose the name is now.
  if (read !== undefined && read.metadata.uid !== ref.uid) {
    return { answer: { outcome: watchOutcome(ref, { trainJob: read, config, pods: [], observedAt: new Date().toISOString() })!, checks } };
  }
  return read ? { trainJob: read } : {};
}

/**
 * The outcome of what one check observed, if it has one; a Failed one with its pods when they are
 * read. With MultiKueue (`workers`), the pods of the worker cluster the Workload names, where
 * MultiKueue's copy ran (the manager has none), and the failures this worker's watch of those pods
 * remembers (MultiKueue deletes them about a second after the failure, often before the manager
 * shows it): the first of both. Unanswered there and nothing remembered, the Watch waits as for
 * the manager, but only until timeouts.call after the failure, and then answers without the exit
 * code, its message saying why (docs/multikueue.md, "Operations and Watch").
 */
export async function outcomeOf(calls: ObjectCalls, ref: TrainJobRef, observed: Observed, jobId: string | undefined, workers?: WorkerPods): Promise<Outcome | undefined> {
  const observedAt = new Date().toISOString();
  const outcome = watchOutcome(ref, { ...observed, pods: [], observedAt });
  if (outcome?.phase !== 'Failed' || observed.trainJob === undefined || jobId === undefined) return outcome;
  const selector = `${Labels.jobId}=${jobId}`;
  const source = workers === undefined ? ({ on: 'manager' } as const) : podsSource(observed, workers.names);
  if (source.on === 'nowhere') return withoutExitCode(outcome, source.why);
  const job = jobKeyOf(observed.trainJob);
  if (workers !== undefined && source.on === 'manager') return withoutRecordedCluster(ref, observed, outcome, job, workers, observedAt);
  if (source.on === 'manager' || workers === undefined) {
    const pods = (await calls.listPods(ref.namespace, selector).catch(unansweredAs('pods'))) as KubeAnswer<{ items?: Pod[] }>;
    return pods.answered === 'ok' ? watchOutcome(ref, { ...observed, pods: pods.value.items ?? [], observedAt }) : outcome;
  }
  const on = `worker cluster ${source.cluster}`;
  const known = job === undefined ? undefined : workers.remembered?.failureOf(source.cluster, job);
  const remembered = known === undefined ? [] : [known];
  const withPods = (pods: readonly Pod[]) => watchOutcome(ref, { ...observed, pods, remembered, observedAt })!;
  let pods: KubeAnswer<{ items?: Pod[] }>;
  try {
    pods = (await workers.calls(source.cluster).listPods(ref.namespace, selector)) as KubeAnswer<{ items?: Pod[] }>;
  } catch (error) {
    if (error instanceof DispatchError) throw error;
    // What this worker saw fail answers at once: the list could only add a failure its watch missed.
    if (known !== undefined) return withPods([]);
    const problem = `${on}: ${error instanceof Error ? error.message : String(error)}`;
    if (waitsForWorkerPods(Date.parse(outcome.finishedAt), Date.now(), workers.boundMs)) throw new WaitedOut('pods', problem);
    return withoutExitCode(outcome, `${on} has not answered the pod list since the job failed at ${outcome.finishedAt} (${problem})`);
  }
  if (pods.answered === 'definite') {
    return known !== undefined ? withPods([]) : withoutExitCode(outcome, `${on} refused the pod list: ${describeRefusal(pods)}`);
  }
  const answered = withPods(pods.value.items ?? []);
  if (answered.exitCode !== undefined) return answered;
  return withoutExitCode(
    answered,
    `no pod labelled ${selector} on ${on} has a node container that terminated non-zero, and this worker's watch of its pods saw none (MultiKueue deletes the worker's copy, and its pods, once the job has finished; a worker started after that has not seen them)`,
  );
}

/**
 * With worker clusters configured, a Failed job whose Workload names no worker cluster (Kueue
 * copied the status back but could not record status.clusterName: its own webhook refused it in a
 * chaos run, "when setting clusterName it must be one of the nominatedClusterNames"): the manager
 * runs no pods, so the exit code is what this worker's watch of every worker cluster's pods
 * remembers of the job, or the Outcome says why there is none.
 */
function withoutRecordedCluster(ref: TrainJobRef, observed: Observed, outcome: Outcome, job: ReturnType<typeof jobKeyOf>, workers: WorkerPods, observedAt: string): Outcome {
  const remembered = job === undefined ? [] : workers.names.flatMap((cluster) => workers.remembered?.failureOf(cluster, job) ?? []);
  const answered = watchOutcome(ref, { ...observed, pods: [], remembered, observedAt })!;
  if (answered.exitCode !== undefined) return answered;
  return withoutExitCode(
    answered,
    `Kueue recorded no worker cluster for the job (its Workload has no status.clusterName), and this worker's watch of the worker clusters' pods (${workers.names.join(', ')}) saw no node container of it terminate non-zero`,
  );
}

/**
 * What wakes the next check before the interval: the worker's watch seeing the TrainJob (or, in
 * Kueue mode, its Workload) change. Nothing when the TrainJob was gone at the first read.
 */
function changesOf(lists: SharedLists, config: Config, ref: TrainJobRef, jobId: string | undefined) {
  if (jobId === undefined) return [];
  return [
    untilChanged(lists, TRAINJOBS, ref.namespace, Labels.jobId, jobId, WATCH_POLL_MS),
    ...(config.mode === 'kueue' ? [untilChanged(lists, workloads(config.kueue.workloadVersion), ref.namespace, Labels.kueueJobUid, ref.uid, WATCH_POLL_MS)] : []),
  ];
}

/**
 * One check: the TrainJob and its Workload from the shared lists. Throws when a list goes
 * unanswered. A TrainJob missing from them is read by name before it counts as gone: the
 * worker's watch can be seconds behind the API server under load, so only the API server's own
 * 404 says Absent.
 */
async function observe(lists: SharedLists, config: Config, ref: TrainJobRef, jobId: string, calls: ObjectCalls, signal: AbortSignal): Promise<Observed> {
  const ofJob = await lists.find(TRAINJOBS, ref.namespace, Labels.jobId, jobId, signal).catch(unansweredAs('list'));
  if (ofJob.answered === 'definite') throw refusedCall(ref, 'list', 'listing TrainJobs', ofJob);
  const isOurs = (t: TrainJob) => t.metadata?.uid === ref.uid && t.metadata?.name === ref.name;
  let found = (ofJob.value as TrainJob[]).find(isOurs);
  if (found === undefined) {
    const read = await calls.get(TRAINJOBS, ref.namespace, ref.name).catch(unansweredAs('read'));
    if (read.answered === 'definite' && read.status !== 404) throw refusedCall(ref, 'read', `reading TrainJob ${ref.namespace}/${ref.name}`, read);
    if (read.answered === 'ok' && isOurs(read.value as TrainJob)) found = read.value as TrainJob;
  }
  const trainJob = found && trimTrainJob(found);
  if (config.mode !== 'kueue' || trainJob === undefined) return trainJob ? { trainJob, config } : { config };
  const ofUid = await lists
    .find(workloads(config.kueue.workloadVersion), ref.namespace, Labels.kueueJobUid, ref.uid, signal)
    .catch(unansweredAs('list'));
  if (ofUid.answered === 'definite') throw refusedCall(ref, 'list', 'listing Workloads', ofUid);
  const workload = workloadOfTrainJob(ofUid.value as Workload[], ref.uid);
  return { trainJob, config, ...(workload ? { workload: trimWorkload(workload) } : {}) };
}

export function watchActivities(env: ActivityEnv, lists: SharedLists, countUnanswered: CountUnanswered = () => {}, reads = new MultiKueueClusterReads(env.kube, env.requestTimeoutMs)) {
  return {
    async watchTrainJob(input: WatchInput): Promise<WatchAnswer> {
      const ctx = Context.current();
      const { config, ref } = input;
      const calls = callsFor(env);
      const callMs = toMillis(parseGoDuration(config.timeouts.call)!);
      const resumed = ctx.info.heartbeatDetails as WatchProgress | undefined;
      const shownSilence = input.unansweredSince !== undefined;
      const sliceEnd = Date.now() + input.sliceMs;
      let checks = resumed?.checks ?? 0;
      // Since when the API has not answered (epoch ms), across retries of this call and calls of the workflow.
      const silentFrom = resumed?.unansweredSince ?? input.unansweredSince;
      let since = silentFrom === undefined ? undefined : Date.parse(silentFrom);
      // The first read's answer: the job-id label of the ref's TrainJob, undefined when it is gone.
      let first: { jobId?: string } | undefined;
      for (;;) {
        checks += 1;
        try {
          if (first === undefined) {
            const read = await firstRead(calls, config, ref, checks);
            if ('answer' in read) return read.answer;
            first = { jobId: read.trainJob?.metadata.labels?.[Labels.jobId] };
          }
          const observed: Observed = first.jobId === undefined ? { config } : await observe(lists, config, ref, first.jobId, calls, ctx.cancellationSignal);
          const outcome = await outcomeOf(calls, ref, observed, first.jobId, workerPodsOf(env, config));
          since = undefined;
          if (outcome) return { outcome, checks };
          const state = stateOf(ref, await withWorkerCluster(observed, reads));
          if (state.phase !== input.shownPhase || shownSilence || Date.now() >= sliceEnd) return { state, checks };
          ctx.heartbeat({ checks, phase: state.phase, reasons: state.reasons } satisfies WatchProgress);
        } catch (error) {
          if (!(error instanceof WaitedOut)) throw error;
          countUnanswered(error.call, error.status);
          since ??= Date.now();
          const unansweredSince = new Date(since).toISOString();
          const tellWorkflow = (!shownSilence && Date.now() - since >= callMs) || Date.now() >= sliceEnd;
          if (tellWorkflow) return { unanswered: { since: unansweredSince, problem: error.message }, checks };
          ctx.heartbeat({ checks, reasons: [error.message], unansweredSince } satisfies WatchProgress);
        }
        await sleepOrWake(WATCH_POLL_MS, changesOf(lists, config, ref, first?.jobId));
      }
    },
  };
}
