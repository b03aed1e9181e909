// An object's status.conditions (metav1.Condition), read without trusting their shape.
import type { KubeObject } from '../../model/kube.js';
import { ConditionStatus } from '../../model/lifecycle-constants.js';
import type { Condition } from '../../model/lifecycle.js';
import { isRecord } from './fields.js';

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
