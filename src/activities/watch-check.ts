// A woken Watch's one check (docs/contract.md §9b): the workflow waits holding no activity, and
// when the worker's watch wakes it (src/worker/watch-waker.ts) or its timer fires, it reads the
// phase with this short local activity and either answers or waits again.
//
// One read of the TrainJob by name (the API server's own answer: a wake comes from the worker's
// watch, which may be behind another worker's), in Kueue mode its Workload from the shared lists,
// and the pods of a Failed one (with MultiKueue, on the worker cluster it ran on), and while it runs
// on a worker cluster, that cluster's MultiKueueCluster (worker-cluster-reads.ts). Classified as the Watch activity classifies a check: an outcome,
// the state, a refusal (not dispatch's), or unanswered, which the workflow waits out with its own
// timer (it never gives up: docs/contract.md §9a).
import { Context } from '@temporalio/activity';
import type { Config } from '../model/config.js';
import { Labels } from '../model/constants.js';
import type { Workload } from '../model/kube.js';
import type { Outcome, TrainJobRef, TrainJobState } from '../model/operations.js';
import { trimWorkload } from '../core/objects/observed-trim.js';
import { workloadOfTrainJob } from '../core/objects/workloads.js';
import type { Observed } from '../core/operations/observed.js';
import { stateOf } from '../core/operations/phase.js';
import { workloads } from '../kube/objects.js';
import type { SharedLists } from '../kube/shared-lists.js';
import { callsFor, type ActivityEnv } from './context.js';
import { MultiKueueClusterReads, withWorkerCluster, workerPodsOf } from './worker-cluster-reads.js';
import { firstRead, outcomeOf, refusedCall, WaitedOut, unansweredAs, type CountUnanswered } from './watch-activities.js';

export interface WatchCheckInput {
  config: Config;
  ref: TrainJobRef;
}

export type WatchCheck =
  | { outcome: Outcome }
  | { state: TrainJobState }
  /** The TrainJob of the ref's UID is not dispatch's (ErrRejected), in the phase read. */
  | { refused: string[]; state: TrainJobState }
  /** A call went unanswered: the Watch waits and checks again. */
  | { unanswered: { problem: string } };

export function watchCheckActivities(env: ActivityEnv, lists: SharedLists, countUnanswered: CountUnanswered = () => {}, reads = new MultiKueueClusterReads(env.kube, env.requestTimeoutMs)) {
  return {
    async checkWatchedTrainJob(input: WatchCheckInput): Promise<WatchCheck> {
      const { config, ref } = input;
      const calls = callsFor(env);
      try {
        const read = await firstRead(calls, config, ref, 1);
        if ('answer' in read) {
          const { checks: _checks, ...answer } = read.answer;
          if ('unanswered' in answer) return { unanswered: { problem: answer.unanswered.problem } };
          return answer;
        }
        const { trainJob } = read;
        let observed: Observed = trainJob ? { trainJob, config } : { config };
        if (config.mode === 'kueue' && trainJob !== undefined) {
          const signal = Context.current().cancellationSignal;
          const ofUid = await lists
            .find(workloads(config.kueue.workloadVersion), ref.namespace, Labels.kueueJobUid, ref.uid, signal)
            .catch(unansweredAs('list'));
          if (ofUid.answered === 'definite') throw refusedCall(ref, 'list', 'listing Workloads', ofUid);
          const workload = workloadOfTrainJob(ofUid.value as Workload[], ref.uid);
          if (workload) observed = { ...observed, workload: trimWorkload(workload) };
        }
        const outcome = await outcomeOf(calls, ref, observed, trainJob?.metadata.labels?.[Labels.jobId], workerPodsOf(env, config));
        return outcome ? { outcome } : { state: stateOf(ref, await withWorkerCluster(observed, reads)) };
      } catch (error) {
        if (!(error instanceof WaitedOut)) throw error;
        countUnanswered(error.call, error.status);
        return { unanswered: { problem: error.message } };
      }
    },
  };
}
