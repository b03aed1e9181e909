// Watch with MultiKueue (docs/contract.md §11, docs/multikueue.md "Operations and Watch"): the
// worker cluster a job runs on, as the decisions after Start see it. Where a Failed job's pods are
// listed for its exit code (the worker cluster's API server, where MultiKueue's copy made them),
// how long an unanswered worker cluster is waited for, and what a state says of a worker cluster
// Kueue no longer reaches (its MultiKueueCluster not Active).
import { ConditionStatus } from '../../model/constants.js';
import type { Outcome } from '../../model/operations.js';
import { conditionOf } from '../objects/conditions.js';
import { clusterOf, type Observed, type WorkerClusterRead } from './observed.js';

export type { WorkerClusterRead };

/** The condition Kueue's MultiKueueCluster controller keeps: True while it reaches the worker cluster. */
export const MULTIKUEUE_CLUSTER_ACTIVE = 'Active';

/** Where a Failed job's pods are listed: the manager, or the worker cluster MultiKueue ran it on. */
export type PodsSource = { on: 'manager' } | { on: 'worker'; cluster: string } | { on: 'nowhere'; cluster: string; why: string };

/**
 * Where the exit code is read: the worker cluster of the Workload's status.clusterName when the
 * configuration names it (MultiKueue's copy carries the TrainJob's labels, and so do its pods);
 * without a cluster (no MultiKueue, or none chosen), the manager, as with one cluster. A cluster
 * the configuration does not name is reached by no client of this worker: nowhere.
 */
export function podsSource(observed: Observed, configured: readonly string[]): PodsSource {
  const { cluster } = clusterOf(observed);
  if (cluster === undefined) return { on: 'manager' };
  if (configured.includes(cluster)) return { on: 'worker', cluster };
  return { on: 'nowhere', cluster, why: `worker cluster ${cluster} is not in this worker's configuration (kueue.multiKueue.clusters)` };
}

/**
 * Whether a Watch still waits for the worker cluster's pods of a job that failed at `failedAtMs`
 * (its Outcome's finishedAt, parsed): for `boundMs` (timeouts.call) from the failure; after it the
 * Outcome goes without its exit code (optional in the contract, §9) rather than never. A time that
 * did not parse (NaN) waits no longer.
 */
export function waitsForWorkerPods(failedAtMs: number, nowMs: number, boundMs: number): boolean {
  return Number.isFinite(failedAtMs) && nowMs - failedAtMs < boundMs;
}

/** The Outcome without an exit code, its message saying why none was read. */
export function withoutExitCode(outcome: Outcome, why: string): Outcome {
  const { exitCode: _exitCode, ...rest } = outcome;
  const note = `exit code not read: ${why}`;
  return { ...rest, message: outcome.message === '' ? note : `${outcome.message}; ${note}` };
}

/**
 * What a state says of the job's worker cluster when Kueue may have lost it: its MultiKueueCluster
 * not Active (or gone, or not readable). Nothing while it is Active, or for another cluster than
 * the job's. Kueue, not dispatch, ends such a job: after its workerLostTimeout it requeues the
 * Workload (to any worker) or fails it, and the Watch's Outcome follows the manager's TrainJob.
 */
export function workerClusterNote(read: WorkerClusterRead | undefined, observed: Observed): string | undefined {
  const { cluster } = clusterOf(observed);
  if (read === undefined || cluster === undefined || read.name !== cluster) return undefined;
  const after = 'Kueue requeues or fails the job after its workerLostTimeout';
  if ('unread' in read) return `worker cluster ${cluster} not known to be reached: its MultiKueueCluster was not read (${read.unread})`;
  if ('absent' in read) return `worker cluster ${cluster} lost: no MultiKueueCluster ${cluster} on the manager: ${after}`;
  const active = conditionOf(read.found, MULTIKUEUE_CLUSTER_ACTIVE);
  if (active?.status === ConditionStatus.true) return undefined;
  const said = active === undefined ? 'no condition Active' : `Active=${String(active.status)}${active.reason ? ` (${active.reason}${active.message ? `: ${active.message}` : ''})` : ''}`;
  return `worker cluster ${cluster} lost: MultiKueueCluster ${cluster} ${said}: ${after}`;
}
