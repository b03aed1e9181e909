// The admission check controller's decisions (Kueue mode, docs/contract.md §9).
// Like Kueue's own check controllers, it keeps no memory: each pass reads the AdmissionCheck, the
// namespace's Workloads and TrainJobs, and decides from them alone. Every write tests the object's
// UID and resourceVersion and the entry it changes, so two controllers running at once, or one
// restarted, make each write at most once and never undo each other's.
//
// It sets dispatch's check `Ready` only on a read of the TrainJob made after the Workload's quota
// reservation was read, and undoes a `Ready` whose TrainJob is held (a Hold landed between that
// read and the write): back to `Pending` while Kueue has not admitted the Workload, `Retry` once it
// has (Kueue then evicts it). It never sets `Rejected`, and `Retry` only for that undo: a `Retry`
// requeues the Workload, which a held job's Hold then deactivates.
import type { Workload } from '../../model/kube.js';
import { pointer, preconditions } from '../objects/json-patch.js';
import type { PlannedWrite } from '../objects/planned-write.js';
import { describeObject } from '../objects/describe.js';
import { isRecord } from '../objects/fields.js';
import type { OperationConfig } from '../operations/observed.js';

/** A decision of the controller: a write to make, or why there is none. */
export type ControllerDecision =
  { action: 'none'; reason: string } | { action: 'patch'; write: PlannedWrite };

/** A change of dispatch's entry in a Workload's status.admissionChecks: from one state to another. */
export interface CheckStateChange {
  from: string;
  to: string;
  message: string;
}

/**
 * The status patch that changes dispatch's check entry, testing the Workload's UID and
 * resourceVersion and that the entry is still the check's and in state `from`. The caller has
 * found the entry.
 */
export function checkStateWrite(workload: Workload, config: OperationConfig, now: string, change: CheckStateChange): PlannedWrite {
  const checkName = config.kueue.admissionCheck;
  const checks = workload.status?.admissionChecks ?? [];
  const index = checks.findIndex((c) => isRecord(c) && c.name === checkName);
  const entry = { ...checks[index], state: change.to, message: change.message, lastTransitionTime: now };
  const at = (...rest: string[]) => pointer('status', 'admissionChecks', index, ...rest);
  return {
    kind: 'Workload',
    namespace: config.namespace,
    name: workload.metadata?.name ?? '',
    uid: workload.metadata?.uid ?? '',
    subresource: 'status',
    patch: [
      ...preconditions(workload),
      { op: 'test', path: at('name'), value: checkName },
      { op: 'test', path: at('state'), value: change.from },
      { op: 'replace', path: at(), value: entry },
    ],
    summary: `${describeObject('Workload', workload)}: admission check ${checkName} ${change.to}`,
  };
}
