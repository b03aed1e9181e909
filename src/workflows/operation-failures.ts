// How an operation after Start turns a failed call into its typed failure (docs/contract.md §9): a
// definite refusal keeps the type the activity gave it; a call left unanswered until CallBound is
// ErrUnreachable, safe to retry, as every operation is idempotent.
import type { TrainJobRef } from '../model/operations.js';
import { classify } from './failures.js';

/** A `.catch` handler: the call's failure as a DispatchError (cancellation passes through). */
export const classifyOperationCall =
  (waitingFor: string, ref?: TrainJobRef) =>
  (error: unknown): never => {
    throw classify(error, 0, 'ErrUnreachable', `waiting for ${waitingFor}`, ref);
  };
