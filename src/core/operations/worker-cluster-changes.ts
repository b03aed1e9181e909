// MultiKueue (docs/multikueue.md, "A lost worker cluster wakes its Watches"): what a change of a
// worker cluster's MultiKueueCluster means to the Watches of the jobs placed on it. Pure: the
// worker's poller (src/worker/worker-cluster-wakes.ts) reads, this decides.
import { ConditionStatus, Trainer } from '../../model/constants.js';
import type { KubeObject } from '../../model/kube.js';
import { conditionOf } from '../objects/conditions.js';
import type { WorkerClusterRead } from './observed.js';
import { MULTIKUEUE_CLUSTER_ACTIVE } from './worker-cluster.js';

/**
 * What a Watch's state says of the cluster, as one word: `active`, or the Active condition's
 * status and reason (`False/ClientConnectionFailed`), or `absent`. Undefined for a read that did
 * not answer: it says nothing new, so it changes nothing and wakes no one (a flaky manager makes
 * no wake storm). The message is left out: Kueue rewrites it (a new error text) while the cluster
 * stays lost, and the Watch's note would change with it, but not its meaning.
 */
export function activeStateOf(read: WorkerClusterRead): string | undefined {
  if ('unread' in read) return undefined;
  if ('absent' in read) return 'absent';
  const active = conditionOf(read.found, MULTIKUEUE_CLUSTER_ACTIVE);
  if (active?.status === ConditionStatus.true) return 'active';
  return active === undefined ? 'no-condition' : `${String(active.status)}/${String(active.reason ?? '')}`;
}

/**
 * Whether the Watches of the cluster's jobs are to be woken, from the state last acted on (undefined:
 * none yet, this worker's first read) and the one just read: when it changed; on the first read,
 * only when the cluster is not active (a worker started after the loss wakes its Watches once;
 * an active cluster is what every Watch already assumes).
 */
export function wakesOnChange(before: string | undefined, now: string | undefined): boolean {
  if (now === undefined) return false;
  if (before === undefined) return now !== 'active';
  return before !== now;
}

/**
 * The TrainJobs a change of the cluster concerns: those whose Workload (the namespace's Workloads,
 * as the worker's feed holds them) Kueue placed there (status.clusterName), by the Workload's
 * TrainJob owner.
 */
export function trainJobsPlacedOn(cluster: string, workloads: readonly KubeObject[]): { namespace: string; name: string; uid: string }[] {
  const placed: { namespace: string; name: string; uid: string }[] = [];
  for (const w of workloads) {
    if ((w as { status?: { clusterName?: unknown } }).status?.clusterName !== cluster) continue;
    const owner = w.metadata?.ownerReferences?.find((o) => o.kind === Trainer.trainJobKind);
    const namespace = w.metadata?.namespace;
    if (owner && namespace) placed.push({ namespace, name: owner.name, uid: owner.uid });
  }
  return placed;
}
