// The AdmissionCheck reconciler's decision: dispatch's AdmissionCheck is kept `Active: True`, as
// each of Kueue's own admission check controllers keeps its checks active.
import { ConditionStatus, DispatchAdmissionCheck } from '../../model/constants.js';
import type { AdmissionCheck, Condition } from '../../model/kube.js';
import { conditionOf, setConditionOps } from '../objects/conditions.js';
import { preconditions } from '../objects/json-patch.js';
import type { OperationConfig } from '../operations/observed.js';
import type { ControllerDecision } from './decision.js';

/** Whether the AdmissionCheck is for dispatch's controller (spec.controllerName), as Kueue's controllers pick theirs. */
export const isDispatchController = (check: AdmissionCheck): boolean =>
  check.spec?.controllerName === DispatchAdmissionCheck.controllerName;

/** The `Active` condition as dispatch sets it; its time is kept while it stays True. */
function activeCondition(current: Condition | undefined, generation: number | undefined, now: string): Condition {
  return {
    type: DispatchAdmissionCheck.activeCondition,
    status: ConditionStatus.true,
    reason: DispatchAdmissionCheck.activeReason,
    message: DispatchAdmissionCheck.activeMessage,
    lastTransitionTime:
      current?.status === ConditionStatus.true && typeof current.lastTransitionTime === 'string'
        ? current.lastTransitionTime
        : now,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}

/**
 * Keeps dispatch's AdmissionCheck `Active: True` (reason `Ready`): a patch of its status when the
 * condition is not so already (or was set for an older generation), none otherwise. An
 * AdmissionCheck of another name or controller is not dispatch's, and is left alone.
 * `now` (RFC 3339) becomes the condition's lastTransitionTime when its status changes.
 */
export function admissionCheckActivePatch(
  check: AdmissionCheck,
  config: OperationConfig,
  now: string,
): ControllerDecision {
  const name = check.metadata?.name;
  const what = `${DispatchAdmissionCheck.kind} ${name ?? '?'}`;
  if (name !== config.kueue.admissionCheck) {
    return { action: 'none', reason: `${what}: not kueue.admissionCheck (${config.kueue.admissionCheck})` };
  }
  if (!isDispatchController(check)) {
    return {
      action: 'none',
      reason: `${what}: spec.controllerName is ${JSON.stringify(check.spec?.controllerName)}, not ${DispatchAdmissionCheck.controllerName}: not dispatch's to keep active`,
    };
  }
  const generation = typeof check.metadata?.generation === 'number' ? check.metadata.generation : undefined;
  const current = conditionOf(check, DispatchAdmissionCheck.activeCondition);
  if (
    current?.status === ConditionStatus.true &&
    current.reason === DispatchAdmissionCheck.activeReason &&
    (generation === undefined || current.observedGeneration === generation)
  ) {
    return { action: 'none', reason: `${what}: already ${DispatchAdmissionCheck.activeCondition}` };
  }
  return {
    action: 'patch',
    write: {
      kind: 'AdmissionCheck',
      name,
      uid: check.metadata?.uid ?? '',
      subresource: 'status',
      patch: [...preconditions(check), ...setConditionOps(check, activeCondition(current, generation, now))],
      summary: `${what}: condition ${DispatchAdmissionCheck.activeCondition} True (${DispatchAdmissionCheck.activeReason})`,
    },
  };
}
