// Step 1's refusal, and the runtime copy a lost workflow task may have left. Steps 2 to 5 run as
// local activities in the Start's first workflow task, whose results Temporal records only when
// the task completes. When it cannot (Temporal away at that moment), the next worker runs the task
// again from its start, with its own backend gates: if those refuse the Start, the copy the first
// run created at step 5 would stay for good. So a refusal at step 1 removes this attempt's copy,
// when it has no owner and no TrainJob of the attempt runs on it (the Start's undo, from step 1,
// decides so: docs/contract.md §7). Nothing else can exist: step 6 is an activity task, scheduled
// only by a first task that Temporal did record.
import { deprecatePatch } from '@temporalio/workflow';
import { GATE_REFUSAL_REMOVES_COPY } from '../contract/names.js';
import type { Config } from '../model/config.js';
import type { BackendGates } from '../model/results.js';
import { DispatchError } from '../model/errors.js';
import { attemptToken } from '../core/start/names.js';
import { activitiesFor, type TaskEnd } from './activity-proxies.js';
import { classify } from './failures.js';

/**
 * Whether a refusal at step 1 removes the copy first: only when reach and write are proven (else
 * the removal could not be made either). The patch GATE_REFUSAL_REMOVES_COPY is retired (step 2):
 * its deprecated marker goes where patched() asked; the Starts recorded leaving the copy replay
 * against the build recorded before (test/histories/builds.json).
 */
export function removesCopyFirst(gates: BackendGates | undefined): boolean {
  if (gates?.reach !== true || !gates.write) return false;
  deprecatePatch(GATE_REFUSAL_REMOVES_COPY);
  return true;
}

/** The refusal, after removing the copy a lost first workflow task may have made. A removal that fails adds its reason; the type stays. */
export async function removeCopyThenRefuse(refused: DispatchError, config: Config, name: string, attempt: number, taskEnd?: TaskEnd): Promise<DispatchError> {
  const { namespace, mode, kueue } = config;
  const token = attemptToken(namespace, name, attempt);
  try {
    await activitiesFor(config, taskEnd).undoStart({ namespace, name, token, ownerSet: false, step: 1, mode, kueue });
    return refused;
  } catch (error) {
    const failed = classify(error, 1, 'ErrUnreachable', `removing runtime copy ${namespace}/${name}`);
    const reasons = failed.reasons.map((r) => `a runtime copy this attempt may have made could not be removed: ${r}`);
    return new DispatchError(refused.type, [...refused.reasons, ...reasons], refused.step);
  }
}
