// The one way a step of Start runs (steps.ts): report it, make its call, and turn what the call
// threw into the step's typed failure.
import type { TrainJobRef } from '../model/operations.js';
import { classify } from './failures.js';
import type { ProgressReporter } from './progress.js';
import { STAGES, stepOf, type CallStep } from '../core/start/steps.js';

/**
 * Enters `stage` (progress query, current details, DispatchStep), runs `call`, and classifies its
 * failure: a definite refusal keeps the type its activity gave it; a call left unanswered until
 * CallBound becomes the step's `unanswered` type, its reason naming what it waited for (the step's
 * number travels with the failure).
 * A cancellation is rethrown untouched.
 */
export async function runStep<T>(progress: ProgressReporter, stage: CallStep, waitingFor: string, call: () => Promise<T>, ref?: TrainJobRef): Promise<T> {
  progress.enter(stage, waitingFor);
  const { unanswered } = STAGES[stage];
  try {
    return await call();
  } catch (error) {
    throw classify(error, stepOf(stage), unanswered, `waiting for ${waitingFor}`, ref);
  }
}
