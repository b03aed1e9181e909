// A Failed job's exit code, for a Watch's Outcome (docs/contract.md §9): from the manager's pods on
// one cluster; with MultiKueue (§11) from the pods of the worker cluster the Workload names and this
// worker's memory of them (src/worker/exit-code-memory.ts), waited for while that cluster does not
// answer, but only for timeouts.call after the failure; and the reason whenever there is none.
import { Labels } from '../model/constants.js';
import { DispatchError } from '../model/errors.js';
import type { Pod } from '../model/kube.js';
import type { Outcome, TrainJobRef } from '../model/operations.js';
import { watchOutcome } from '../core/operations/watch-outcome.js';
import { jobKeyOf } from '../core/operations/node-failures.js';
import { podsSource, waitsForWorkerPods, withoutExitCode } from '../core/operations/worker-cluster.js';
import type { Observed } from '../core/operations/observed.js';
import { describeRefusal, type KubeAnswer } from '../kube/call.js';
import type { ObjectCalls } from '../kube/objects.js';
import type { WorkerPods } from './worker-cluster-reads.js';
import { unansweredAs, WaitedOut } from './watch-calls.js';

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
