// What the operations after Start decide from: the objects as read, and the configuration's mode.
import type { Config } from '../../model/config.js';
import { Labels } from '../../model/constants.js';
import type { KubeObject, TrainJob, Workload } from '../../model/kube.js';
import { isBeingDeleted } from '../objects/deletion.js';
import { describeObject, show } from '../objects/describe.js';

/** What the decisions after Start read of the configuration. */
export type OperationConfig = Pick<Config, 'namespace' | 'mode' | 'kueue'>;

/** The objects as read. The mode is the configuration's, so the two can never disagree. */
export interface Observed {
  /** The TrainJob of the ref's name; undefined when the read answered 404. */
  trainJob?: TrainJob;
  /** Kueue mode: the Workload labelled `kueue.x-k8s.io/job-uid=<uid>` (workloadOfTrainJob); ignored in plain mode. */
  workload?: Workload;
  config: OperationConfig;
  /**
   * MultiKueue, a Watch: the manager's MultiKueueCluster of the job's worker cluster (worker-cluster.ts);
   * a state says when it is not Active.
   */
  workerCluster?: WorkerClusterRead;
}

/** The MultiKueueCluster of the job's worker cluster as the manager answered (read by name). */
export type WorkerClusterRead =
  | { name: string; found: KubeObject }
  /** The manager answered 404: no MultiKueueCluster of that name. */
  | { name: string; absent: true }
  /** Not read: unanswered, or refused (RBAC); why. */
  | { name: string; unread: string };

/**
 * The observed Workload when it is this TrainJob's and the mode is Kueue's; a note says why one
 * was set aside (another UID's, or being deleted).
 */
export function observedWorkload(observed: Observed): { workload?: Workload; notes: string[] } {
  const { trainJob, workload, config } = observed;
  if (config.mode !== 'kueue' || workload === undefined || trainJob === undefined) return { notes: [] };
  const what = describeObject('Workload', workload);
  const uid = workload.metadata?.labels?.[Labels.kueueJobUid];
  if (uid !== trainJob.metadata?.uid) {
    return {
      notes: [`${what} is labelled ${Labels.kueueJobUid}=${show(uid)}, not this TrainJob's UID: ignored`],
    };
  }
  if (isBeingDeleted(workload)) return { notes: [`${what} is being deleted: ignored`] };
  return { workload, notes: [] };
}

/**
 * The worker cluster MultiKueue chose for the TrainJob, once known: its Workload's
 * status.clusterName (docs/contract.md §11), as a field to spread into a state or an outcome.
 */
export function clusterOf(observed: Observed): { cluster?: string } {
  const name = observedWorkload(observed).workload?.status?.clusterName;
  return typeof name === 'string' && name !== '' ? { cluster: name } : {};
}
