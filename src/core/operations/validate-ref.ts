// The input of the operations after Start (docs/contract.md §9): a TrainJobRef, checked against its
// schema like a start request. Runs in a local activity (prepare-activities.ts), keeping zod out of
// the workflow sandbox.
import { DispatchError } from '../../model/errors.js';
import { issuesToReasons } from '../../model/issues.js';
import { TrainJobRefSchema, type TrainJobRef } from '../../model/operations.js';

/** The ref, or ErrInvalid naming every problem ("uid: must not be empty", "color: unknown field"). */
export function validateTrainJobRef(input: unknown): TrainJobRef {
  const parsed = TrainJobRefSchema.safeParse(input, { reportInput: true });
  if (parsed.success) return parsed.data;
  const reasons = issuesToReasons(parsed.error.issues);
  throw new DispatchError('ErrInvalid', reasons.length > 0 ? reasons : ['not a TrainJobRef {namespace, name, uid}'], 0);
}
