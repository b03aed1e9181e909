// Turning what an activity threw into the typed failure a caller sees (CONTRACT §6): a definite
// refusal keeps the type the activity gave it; an activity that stayed unanswered until CallBound
// becomes the type the seed gives its step (ErrUnreachable at 2 and 5, ErrOutcomeUnknown at 6).
import { isCancellation } from '@temporalio/workflow';
import { DispatchError, fromFailure, toApplicationFailure, type ErrorType, type ObjectRef } from '../model/errors.js';

/** The innermost message of an error chain: what the last unanswered attempt said. */
function lastMessage(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (current.message) message = current.message;
  }
  return message;
}

/**
 * The DispatchError behind an activity failure. Cancellation is rethrown untouched, so the
 * caller's compensation sees it for what it is.
 */
export function classify(error: unknown, step: number, unansweredType: ErrorType, unansweredReason: string, ref?: ObjectRef): DispatchError {
  if (isCancellation(error)) throw error;
  const typed = fromFailure(error);
  if (typed) return new DispatchError(typed.type, typed.reasons, typed.step || step, typed.ref ?? ref);
  return new DispatchError(unansweredType, [`${unansweredReason}: ${lastMessage(error)}`], step, ref);
}

/** A DispatchError as the ApplicationFailure a workflow fails with; anything else is rethrown. */
export function asWorkflowFailure(error: unknown): unknown {
  return error instanceof DispatchError ? toApplicationFailure(error) : error;
}
