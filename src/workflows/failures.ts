// Turning what an activity threw into the typed failure a caller sees (docs/contract.md §6): a definite
// refusal keeps the type the activity gave it; an activity that stayed unanswered until CallBound
// becomes the type docs/start.md gives its step (ErrUnreachable at 2 and 5, ErrOutcomeUnknown at 6).
import { ApplicationFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import { DispatchError, type ErrorType } from '../model/errors.js';
import type { TrainJobRef } from '../model/operations.js';
import { fromFailure, toApplicationFailure } from '../model/error-failures.js';

/** What the last attempt of an unanswered activity said, in words. */
export function unansweredDetail(error: unknown): string {
  let detail = 'no answer';
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (current instanceof TimeoutFailure) detail = 'no answer from the Kubernetes API within timeouts.call';
    else if (current instanceof ApplicationFailure) detail = current.message;
  }
  return detail;
}

/**
 * The DispatchError behind an activity failure. Cancellation is rethrown untouched, so the
 * caller's undo sees it for what it is.
 */
export function classify(error: unknown, step: number, unansweredType: ErrorType, unansweredReason: string, ref?: TrainJobRef): DispatchError {
  if (isCancellation(error)) throw error;
  const typed = fromFailure(error);
  if (typed) return new DispatchError(typed.type, typed.reasons, typed.step || step, typed.ref ?? ref, typed.evidence);
  return new DispatchError(unansweredType, [`${unansweredReason}: ${unansweredDetail(error)}`], step, ref, { definite: false });
}

/** A DispatchError as the ApplicationFailure a workflow fails with; anything else is rethrown. */
export function asWorkflowFailure(error: unknown): unknown {
  return error instanceof DispatchError ? toApplicationFailure(error) : error;
}
