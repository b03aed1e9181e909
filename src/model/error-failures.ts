// How the worker builds a Temporal ApplicationFailure for each error type of errors.ts, and how a
// client maps a failure back to a typed error. Apart from errors.ts, so that the layers below
// Temporal (src/kube, src/core) can take the error types without loading @temporalio/common.
import { ApplicationFailure } from '@temporalio/common';
import { DispatchError, isErrorType, isFailureDetails, type Evidence } from './errors.js';

/**
 * The ApplicationFailure a workflow throws for an error: non-retryable (Temporal does not retry a
 * Start on its own; the caller decides, by type), details `{reasons, step, ref?}`. A refusal that
 * silence decided (errors.ts, Evidence) carries `{definite: false}` as a second detail, so that it
 * stays so from an activity to its workflow; callers read the first detail only.
 */
export function toApplicationFailure(error: DispatchError): ApplicationFailure {
  return ApplicationFailure.create({
    type: error.type,
    message: error.message,
    nonRetryable: true,
    details: error.evidence.definite ? [error.details] : [error.details, error.evidence],
  });
}

const isSilence = (value: unknown): boolean => typeof value === 'object' && value !== null && (value as Evidence).definite === false;

/**
 * The typed error behind a failure a client received (a WorkflowFailedError's cause, an
 * ApplicationFailure directly, or anything in between), or undefined when it carries none.
 */
export function fromFailure(error: unknown): DispatchError | undefined {
  for (let current: unknown = error; current instanceof Error; current = (current as Error).cause) {
    if (current instanceof ApplicationFailure && isErrorType(current.type)) {
      const given: unknown = current.details?.[0];
      const details = isFailureDetails(given) ? given : { reasons: [current.message], step: 0 };
      return new DispatchError(current.type, details.reasons, details.step, details.ref, { definite: !isSilence(current.details?.[1]) });
    }
  }
  return undefined;
}
