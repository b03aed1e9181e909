// The Workload reconciler's undo: dispatch's check `Ready` on a Workload whose TrainJob is held is
// taken back. A Hold's first write, when it is the `held` annotation on the TrainJob (a Hold that
// read no Workload, one Kueue deactivated, or one begun before the patch that writes the Workload
// first), can land between the
// controller's read of the TrainJob and its `Ready` write, which tests only the Workload; the
// controller reads the TrainJob again after each write and undoes it, and each pass undoes any such
// `Ready` left standing (a controller stopped between the two). Back to `Pending` while Kueue has not
// admitted the Workload: that write changes its resourceVersion, so Kueue's own admission write,
// made on what it read, fails and it admits nothing. Once admitted, `Retry`: Kueue evicts it.
import type { TrainJob, Workload } from '../../model/kube.js';
import { CheckStates, Labels, WorkloadConditions } from '../../model/constants.js';
import { isConditionTrue } from '../objects/conditions.js';
import { isBeingDeleted } from '../objects/deletion.js';
import { describeObject } from '../objects/describe.js';
import { checkStateOf, isWorkloadInactive } from '../objects/workloads.js';
import { isHeldMarked } from '../operations/facts.js';
import type { OperationConfig } from '../operations/observed.js';
import { checkStateWrite, type ControllerDecision } from './decision.js';
import { candidatesOf, type Candidate, type PassRead } from './workload-ready.js';

/** Why a Ready on the Workload is not to be undone, its own state alone; undefined when it may be. */
function workloadProblem(workload: Workload, config: OperationConfig): string | undefined {
  const checkName = config.kueue.admissionCheck;
  if (workload.metadata?.namespace !== config.namespace) return `not in namespace ${config.namespace}`;
  if (isBeingDeleted(workload)) return 'being deleted';
  const entry = checkStateOf(workload, checkName);
  if (entry?.state !== CheckStates.ready) return `admission check ${checkName} is ${JSON.stringify(entry?.state)}, not ${CheckStates.ready}`;
  // Inactive: the Hold's second write is there, and Kueue evicts it (the eviction resets the check).
  if (isWorkloadInactive(workload)) return 'spec.active is false';
  if (isConditionTrue(workload, WorkloadConditions.finished)) return `condition ${WorkloadConditions.finished} is True`;
  return undefined;
}

/**
 * Whether dispatch's check, `Ready` on the Workload, is to be undone because its TrainJob (by the
 * job-uid label), as read, is held; and the patch: `Pending` unless the Workload is `Admitted`,
 * then `Retry`. The Workload must be in the configured namespace, not being deleted, active and not
 * finished. Anything else (a TrainJob not read, of another UID, not held): none, and why.
 */
export function undoReadyDecision(
  workload: Workload,
  trainJob: TrainJob | undefined,
  config: OperationConfig,
  now: string,
): ControllerDecision {
  const wl = describeObject('Workload', workload);
  const problem = workloadProblem(workload, config);
  if (problem !== undefined) return { action: 'none', reason: `${wl}: ${problem}` };
  const uid = workload.metadata?.labels?.[Labels.kueueJobUid];
  if (trainJob === undefined || uid === undefined || trainJob.metadata?.uid !== uid) {
    return { action: 'none', reason: `${wl}: no TrainJob of UID ${JSON.stringify(uid)} was read` };
  }
  const job = describeObject('TrainJob', trainJob);
  if (!isHeldMarked(trainJob)) return { action: 'none', reason: `${wl}: ${job} is not held` };
  const admitted = isConditionTrue(workload, WorkloadConditions.admitted);
  return {
    action: 'patch',
    write: checkStateWrite(workload, config, now, {
      from: CheckStates.ready,
      to: admitted ? CheckStates.retry : CheckStates.pending,
      message: admitted
        ? `${job} is held: ${CheckStates.retry}, so that Kueue evicts the Workload it admitted`
        : `${job} is held: back to ${CheckStates.pending} before Kueue admits it`,
    }),
  };
}

/** The Workloads undoReadyDecision undoes, with their TrainJob as listed; each is decided again on a new read. */
export const readiesToUndo = (...read: PassRead): Candidate[] => candidatesOf(undoReadyDecision, ...read);
