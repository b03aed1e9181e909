// The read every decision after Start begins with (docs/contract.md §9): the TrainJob of a ref's
// name and, in Kueue mode, its Workload, both trimmed (observed-trim.ts). The operations' activity
// (operation-activities.ts) and the CLI's `status` read through this one function, so a state the
// CLI prints is decided from exactly what an operation would have read.
import { Labels } from '../model/constants.js';
import { DispatchError } from '../model/errors.js';
import type { TrainJob, Workload } from '../model/kube.js';
import type { TrainJobRef } from '../model/operations.js';
import { trimTrainJob, trimWorkload } from '../core/objects/observed-trim.js';
import { workloadOfTrainJob } from '../core/objects/workloads.js';
import { type OperationConfig } from '../core/operations/observed.js';
import { classifyRefusal } from '../core/objects/refusal-type.js';
import { describeRefusal, type KubeAnswer } from './call.js';

/** A definite answer that refused a call. */
export type KubeRefusal = Extract<KubeAnswer<unknown>, { answered: 'definite' }>;
import { TRAINJOBS, workloads, type ObjectCalls } from './objects.js';

/** The configuration the read needs: the namespace, the mode and Kueue's names and API version. */
export type ObserveConfig = OperationConfig;

/** The TrainJob of the ref's name and its Workload, trimmed; absent when not found. */
export interface ObservedObjects {
  trainJob?: TrainJob;
  workload?: Workload;
}

/**
 * A definite refusal of a call about the ref's TrainJob, typed by the one refusal rule
 * (classifyRefusal): ErrReadOnly for RBAC's 403, ErrRejected for every other (a webhook's denial too).
 */
export function refused(ref: TrainJobRef, what: string, answer: KubeRefusal): DispatchError {
  const { type, reason } = classifyRefusal(what, answer, describeRefusal(answer));
  return new DispatchError(type, [reason], 0, ref);
}

/** Lists the Workloads labelled with the TrainJob's UID and picks its own (workloadOfTrainJob). */
async function readWorkload(calls: ObjectCalls, config: ObserveConfig, ref: TrainJobRef, uid: string): Promise<Workload | undefined> {
  const answer = (await calls.list(workloads(config.kueue.workloadVersion), ref.namespace, `${Labels.kueueJobUid}=${uid}`)) as KubeAnswer<{
    items?: Workload[];
  }>;
  if (answer.answered === 'definite') throw refused(ref, `listing the Workloads of TrainJob ${ref.namespace}/${ref.name}`, answer);
  const workload = workloadOfTrainJob(answer.value.items ?? [], uid);
  return workload && trimWorkload(workload);
}

/**
 * Reads the TrainJob of the ref's name and, in Kueue mode, its Workload. A ref outside the
 * configured namespace is not read: the plan refuses it. A definite refusal other than 404 is
 * ErrReadOnly (RBAC's 403) or ErrRejected; no answer throws what kubeCall throws (a retryable KubeUnanswered failure).
 */
export async function readTrainJob(calls: ObjectCalls, config: ObserveConfig, ref: TrainJobRef): Promise<ObservedObjects> {
  if (ref.namespace !== config.namespace) return {};
  const answer = await calls.get(TRAINJOBS, ref.namespace, ref.name);
  if (answer.answered === 'definite') {
    if (answer.status === 404) return {};
    throw refused(ref, `reading TrainJob ${ref.namespace}/${ref.name}`, answer);
  }
  const trainJob = trimTrainJob(answer.value as TrainJob);
  const uid = trainJob.metadata.uid;
  if (config.mode !== 'kueue' || uid === undefined) return { trainJob };
  const workload = await readWorkload(calls, config, ref, uid);
  return workload ? { trainJob, workload } : { trainJob };
}
