// The AdmissionCheck reconciler's decision: dispatch's AdmissionCheck is kept `Active: True`.
import { ConditionStatus, DispatchAdmissionCheck } from '../../model/lifecycle-constants.js';
import type { AdmissionCheck, Condition, JsonPatchOp } from '../../model/lifecycle.js';
import { conditionsOf } from '../objects/conditions.js';
import { pointer, preconditions } from '../objects/json-patch.js';
import type { OperationConfig } from '../operations/observed.js';
import type { ControllerDecision } from './decision.js';

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
  const controller = check.spec?.controllerName;
  if (controller !== DispatchAdmissionCheck.controllerName) {
    return {
      action: 'none',
      reason: `${what}: spec.controllerName is ${JSON.stringify(controller)}, not ${DispatchAdmissionCheck.controllerName}: not dispatch's to keep active`,
    };
  }
  const generation = typeof check.metadata?.generation === 'number' ? check.metadata.generation : undefined;
  const conditions = conditionsOf(check);
  const index = conditions.findIndex((c) => c.type === DispatchAdmissionCheck.activeCondition);
  const current = conditions[index];
  if (
    current?.status === ConditionStatus.true &&
    current.reason === DispatchAdmissionCheck.activeReason &&
    (generation === undefined || current.observedGeneration === generation)
  ) {
    return { action: 'none', reason: `${what}: already ${DispatchAdmissionCheck.activeCondition}` };
  }
  const condition: Condition = {
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
  // conditionsOf skips malformed entries, so its indexes are the list's only when none was skipped;
  // otherwise the list is written whole, the well-formed conditions kept.
  const raw = check.status?.conditions;
  const wellFormed = Array.isArray(raw) && raw.length === conditions.length;
  let ops: JsonPatchOp[];
  if (typeof check.status !== 'object' || check.status === null) {
    ops = [{ op: 'add', path: pointer('status'), value: { conditions: [condition] } }];
  } else if (!wellFormed) {
    ops = [
      {
        op: 'add',
        path: pointer('status', 'conditions'),
        value: [...conditions.filter((c) => c.type !== condition.type), condition],
      },
    ];
  } else if (index < 0) {
    ops = [{ op: 'add', path: pointer('status', 'conditions', '-'), value: condition }];
  } else {
    ops = [
      { op: 'test', path: pointer('status', 'conditions', index, 'type'), value: condition.type },
      { op: 'replace', path: pointer('status', 'conditions', index), value: condition },
    ];
  }
  return {
    action: 'patch',
    write: {
      kind: 'AdmissionCheck',
      name,
      uid: check.metadata?.uid ?? '',
      subresource: 'status',
      patch: [...preconditions(check), ...ops],
      summary: `${what}: condition ${DispatchAdmissionCheck.activeCondition} True (${DispatchAdmissionCheck.activeReason})`,
    },
  };
}
