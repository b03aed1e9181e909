// An object's status.conditions (metav1.Condition), read without trusting their shape.
import type { KubeObject } from '../../model/kube.js';
import { ConditionStatus } from '../../model/constants.js';
import type { Condition, JsonPatchOp } from '../../model/kube.js';
import { isRecord } from './fields.js';
import { pointer } from './json-patch.js';

/** The well-formed entries of status.conditions; anything else in the list is skipped. */
export function conditionsOf(object: KubeObject | undefined): Condition[] {
  const status = object?.status;
  if (!isRecord(status) || !Array.isArray(status.conditions)) return [];
  return status.conditions.filter(
    (c): c is Condition => isRecord(c) && typeof c.type === 'string' && typeof c.status === 'string',
  );
}

export function conditionOf(object: KubeObject | undefined, type: string): Condition | undefined {
  return conditionsOf(object).find((c) => c.type === type);
}

export function isConditionTrue(object: KubeObject | undefined, type: string): boolean {
  return conditionOf(object, type)?.status === ConditionStatus.true;
}

/** `Complete is True (AllJobsCompleted: jobset completed successfully)`. */
export function showCondition(condition: Condition): string {
  const why = [condition.reason, condition.message]
    .filter((s) => typeof s === 'string' && s !== '')
    .join(': ');
  return `condition ${condition.type} is ${condition.status}${why === '' ? '' : ` (${why})`}`;
}

/**
 * The JSON patch operations that set one condition in status.conditions: replaced in place (its
 * index tested) when there, appended when not, status added when missing. conditionsOf skips
 * malformed entries, so its indexes are the list's only when none was skipped; otherwise the list
 * is written whole, the well-formed conditions kept.
 */
export function setConditionOps(object: KubeObject, condition: Condition): JsonPatchOp[] {
  const conditions = conditionsOf(object);
  const index = conditions.findIndex((c) => c.type === condition.type);
  const raw = isRecord(object.status) ? object.status.conditions : undefined;
  const wellFormed = Array.isArray(raw) && raw.length === conditions.length;
  if (typeof object.status !== 'object' || object.status === null) {
    return [{ op: 'add', path: pointer('status'), value: { conditions: [condition] } }];
  }
  if (!wellFormed) {
    return [
      {
        op: 'add',
        path: pointer('status', 'conditions'),
        value: [...conditions.filter((c) => c.type !== condition.type), condition],
      },
    ];
  }
  if (index < 0) return [{ op: 'add', path: pointer('status', 'conditions', '-'), value: condition }];
  return [
    { op: 'test', path: pointer('status', 'conditions', index, 'type'), value: condition.type },
    { op: 'replace', path: pointer('status', 'conditions', index), value: condition },
  ];
}
