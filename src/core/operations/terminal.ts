// Whether and how a TrainJob has ended (docs/contract.md §9): its `Failed` or `Complete` condition,
// or in Kueue mode dispatch's check `Rejected` on its Workload, or Kueue deactivating the Workload
// of a TrainJob that is not held. phaseOf and Watch's outcome both read it.
import { CheckStates, ConditionStatus, OutcomeReasons, TrainJobConditions } from '../../model/constants.js';
import type { Condition } from '../../model/kube.js';
import { conditionOf, showCondition } from '../objects/conditions.js';
import { describeObject } from '../objects/describe.js';
import { checkStateOf, kueueDeactivation } from '../objects/workloads.js';
import { isHeldMarked } from './facts.js';
import { observedWorkload, type Observed } from './observed.js';

/** How a TrainJob ended, from what was read; undefined while it has not. */
export interface Terminal {
  phase: 'Succeeded' | 'Failed';
  reason: string;
  message: string;
  /** When the deciding condition or check last changed, if it says. */
  at?: string;
  /** The reason line for a TrainJobState. */
  detail: string;
}

const terminalFrom = (phase: Terminal['phase'], what: string, c: Condition): Terminal => ({
  phase,
  reason: c.reason ?? c.type,
  message: c.message ?? '',
  ...(typeof c.lastTransitionTime === 'string' ? { at: c.lastTransitionTime } : {}),
  detail: `${what}: ${showCondition(c)}`,
});

/** Whether the TrainJob has completed or failed (see the head of this file and of phase.ts). */
export function terminalOf(observed: Observed): Terminal | undefined {
  const { trainJob, config } = observed;
  if (trainJob === undefined) return undefined;
  const what = describeObject('TrainJob', trainJob);
  for (const [type, phase] of [
    [TrainJobConditions.failed, 'Failed'],
    [TrainJobConditions.complete, 'Succeeded'],
  ] as const) {
    const c = conditionOf(trainJob, type);
    if (c?.status === ConditionStatus.true) return terminalFrom(phase, what, c);
  }
  const { workload } = observedWorkload(observed);
  if (workload === undefined) return undefined;
  const wl = describeObject('Workload', workload);
  const check = checkStateOf(workload, config.kueue.admissionCheck);
  if (check?.state === CheckStates.rejected) {
    const message = `admission check ${check.name} is ${CheckStates.rejected}${check.message ? `: ${check.message}` : ''}`;
    return {
      phase: 'Failed',
      reason: OutcomeReasons.admissionCheckRejected,
      message,
      ...(typeof check.lastTransitionTime === 'string' ? { at: check.lastTransitionTime } : {}),
      detail: `${wl}: ${message}`,
    };
  }
  const deactivation = isHeldMarked(trainJob) ? undefined : kueueDeactivation(workload);
  return deactivation === undefined
    ? undefined
    : terminalFrom('Failed', `${wl} deactivated by Kueue`, deactivation);
}
