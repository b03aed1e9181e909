// Start's back-to-back calls folded on their first attempt (patch `start-folded-calls`): steps 2
// and 5 run as one local activity, and steps 7 and 8 as another (src/activities/folded-start-activities.ts),
// so that a plain Start takes five worker activations where it took seven. The steps stay the
// steps: each is entered in its turn (progress query, current details, DispatchStep), a definite
// refusal is reported at its own step, and a step the fold stopped at (its call unanswered) goes on
// with its own local activity and the rest of its retry, showing its step while it backs off.
import { isCancellation, patched } from '@temporalio/workflow';
import { START_FOLDED_CALLS } from '../contract/names.js';
import { DispatchError, type ObjectRef } from '../model/errors.js';
import { fromFailure } from '../model/error-failures.js';
import type { FoldStop } from '../activities/folded-start-activities.js';
import { classify, unansweredDetail } from './failures.js';
import type { ProgressReporter } from './progress.js';
import { runStep } from './run-step.js';
import { PHASES, type CallStep } from '../core/start/steps.js';

/** The steps whose calls are folded. */
type FoldedStep = 2 | 5 | 7 | 8;

/**
 * Whether this Start folds its calls: only with one upsert per workflow task (a step a fold stopped
 * at is flushed before its backoff), and under the patch. Decided once, at step 2.
 */
export const foldsCalls = (progress: ProgressReporter): boolean => progress.perTask && patched(START_FOLDED_CALLS);

/**
 * A fold's first attempt, entered at its first step. A definite refusal is reported at the step it
 * names (`waitingFor` says what each of the fold's steps waits for); a cancellation is rethrown;
 * anything else (its one attempt timed out) stops the fold at its first step, which then goes on
 * with its own call.
 */
export async function firstAttempt<F extends { stopped?: FoldStop }>(
  progress: ProgressReporter,
  waitingFor: Partial<Record<FoldedStep, string>>,
  call: () => Promise<F>,
  ref?: ObjectRef,
): Promise<F> {
  const [first, ...rest] = Object.keys(waitingFor).map(Number) as FoldedStep[];
  progress.enter(first!, waitingFor[first!]!);
  try {
    return await call();
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (!fromFailure(error)) return { stopped: { step: first!, reason: unansweredDetail(error) } } as F;
    const refusal = classify(error, first!, PHASES[first!].unanswered, `waiting for ${waitingFor[first!]}`, ref);
    const at = rest.find((step) => step === refusal.step);
    if (at !== undefined) progress.enter(at, waitingFor[at]!);
    throw refusal;
  }
}

export interface StepCall<T> {
  /** What the fold answered for this step, if it got that far. */
  answered?: { value: T };
  /** Where the fold stopped, if it did. */
  stopped?: FoldStop;
  /** The step's call after the fold's attempt (the rest of its retry). */
  retried: () => Promise<T>;
  /** The step's whole call (no fold, or a fold that stopped before this step). */
  call: () => Promise<T>;
  /** Whether CallBound leaves a retry after a first attempt. */
  retriesAfterFirst: boolean;
}

/**
 * One step of Start after its fold: entered in its turn, with the fold's answer when it had one;
 * else, when the fold stopped at this step, the rest of its retry; else its whole call.
 */
export async function stepAfterFold<T>(progress: ProgressReporter, phase: CallStep, waitingFor: string, step: StepCall<T>, ref?: ObjectRef): Promise<T> {
  if (step.answered) {
    progress.enter(phase, waitingFor);
    return step.answered.value;
  }
  if (step.stopped?.step !== phase) return runStep(progress, phase, waitingFor, step.call, ref);
  if (!step.retriesAfterFirst) {
    progress.enter(phase, waitingFor);
    throw new DispatchError(PHASES[phase].unanswered!, [`waiting for ${waitingFor}: ${step.stopped.reason}`], phase, ref);
  }
  return runStep(progress, phase, waitingFor, step.retried, ref);
}
