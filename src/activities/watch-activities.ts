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
import type { TrainJob, Workload } from '../model/kube.js';
import type { Outcome, Phase, TrainJobRef, TrainJobState } from '../model/operations.js';
import { watchOutcome } from '../core/operations/watch-outcome.js';
import { MultiKueueClusterReads, withWorkerCluster, workerPodsOf } from './worker-cluster-reads.js';
import { identityRefusals } from '../core/operations/identity.js';
import { trimTrainJob, trimWorkload } from '../core/objects/observed-trim.js';
import { stateOf } from '../core/operations/phase.js';
import { workloadOfTrainJob } from '../core/objects/workloads.js';
import { type Observed } from '../core/operations/observed.js';
import { untilChanged, type SharedLists } from '../kube/shared-lists.js';
import { callsFor, sleepOrWake, type ActivityEnv } from './context.js';
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

import { refusedCall, unansweredAs, WaitedOut, type CountUnanswered } from './watch-calls.js';
import { outcomeOf } from './failed-outcome.js';

export { refusedCall, unansweredAs, WaitedOut, type CountUnanswered, type WatchCall } from './watch-calls.js';
export { outcomeOf } from './failed-outcome.js';

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
