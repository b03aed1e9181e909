// Step 9's checks: the Workload of a TrainJob, by its job-uid label, from a list shared with the
// other checks of the worker (batched-lists.ts). So a worker waiting for 1,000 Workloads lists ~20
// times a second instead of 1,000.
import { Labels } from '../model/constants.js';
import type { Workload } from '../model/kube.js';
import { ownWorkload } from '../core/objects/workloads.js';
import { labelInSelector, MAX_VALUES } from './batched-lists.js';
import type { KubeAnswer } from './call.js';
import { workloads } from './objects.js';
import { untilChanged, type SharedLists } from './shared-lists.js';

/** UIDs in one list's selector. */
export const MAX_UIDS = MAX_VALUES;

/** `kueue.x-k8s.io/job-uid in (<uid>,...)`: the Workloads of these TrainJobs. */
export const workloadsOfSelector = (uids: readonly string[]) => labelInSelector(Labels.kueueJobUid, uids);

export class WorkloadChecks {
  constructor(private readonly lists: SharedLists) {}

  /** Waits `ms`, or less when the worker's watch sees this TrainJob's Workload change first. */
  changeOf(namespace: string, version: string, uid: string, ms: number): Promise<void> {
    return untilChanged(this.lists, workloads(version), namespace, Labels.kueueJobUid, uid, ms);
  }

  /**
   * The TrainJob's own Workload among those labelled with its UID (ownWorkload: owned by it, not
   * being deleted, not Finished), or the list's definite refusal. Rejects as the list does when it
   * goes unanswered, or when `signal` aborts first.
   */
  async check(namespace: string, version: string, uid: string, signal?: AbortSignal): Promise<KubeAnswer<Workload | undefined>> {
    const answer = await this.lists.find(workloads(version), namespace, Labels.kueueJobUid, uid, signal);
    return answer.answered === 'ok' ? { answered: 'ok', value: ownWorkload(answer.value as Workload[], uid) } : answer;
  }
}
