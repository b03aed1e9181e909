// The planned-write sender: one JSON patch, planned by the pure core from what was read, sent to
// where its kind and subresource say. The operations' activity and the admission check controller
// both write through this, and read a stale answer the same way.
import type { PlannedWrite } from '../core/objects/planned-write.js';
import type { KubeObject } from '../model/kube.js';
import type { KubeAnswer } from './call.js';
import { admissionChecks, TRAINJOBS, workloads, type ObjectCalls } from './objects.js';

/**
 * The apiserver's answer to a JSON patch whose `test` failed or whose path is missing: 422 with
 * this message and no details. A webhook's or validation's 422 names its causes.
 */
const PATCH_NOT_APPLIED = 'the server rejected our request due to an error in our request';

/** Whether a definite answer to a write means "what was read has changed": read again. */
export const isStaleWrite = (answer: { status: number; message: string }): boolean =>
  answer.status === 409 || answer.status === 404 || (answer.status === 422 && answer.message === PATCH_NOT_APPLIED);

/**
 * Sends one planned write to where its kind and subresource say: the TrainJob, the Workload or its
 * status, or the AdmissionCheck's status. The operations and the admission check controller both
 * send their writes through this.
 */
export function sendPlannedWrite(calls: ObjectCalls, write: PlannedWrite, workloadVersion: string): Promise<KubeAnswer<KubeObject>> {
  const namespace = write.namespace ?? '';
  if (write.kind === 'AdmissionCheck') return calls.patchClusterScopedStatus(admissionChecks(workloadVersion), write.name, write.patch);
  if (write.subresource === 'status') return calls.patchStatus(workloads(workloadVersion), namespace, write.name, write.patch);
  return calls.patch(write.kind === 'TrainJob' ? TRAINJOBS : workloads(workloadVersion), namespace, write.name, write.patch);
}
