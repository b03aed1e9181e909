// Start's back-to-back calls folded on their first attempt (patch `start-folded-calls`, retired:
// docs/versioning.md): steps 2
// and 5 run as one local activity, and steps 7 and 8 as another (src/activities/folded-start-activities.ts),
// so that a plain Start takes five worker activations where it took seven. The steps stay the
// steps: each is entered in its turn (progress query, current details, DispatchStep), a definite
// refusal is reported at its own step, and a step the fold stopped at (its call unanswered) goes on
// with its own local activity and the rest of its retry, showing its step while it backs off.
import { deprecatePatch, isCancellation } from '@temporalio/workflow';
import { START_FOLDED_CALLS } from '../contract/names.js';
import type { TrainJobRef } from '../model/operations.js';
import { fromFailure } from '../model/error-failures.js';
import type { CopyFold, FoldStop, OwnerFold } from '../activities/folded-start-activities.js';
import { classify, unansweredDetail } from './failures.js';
import type { ProgressReporter } from './progress.js';
import { STAGES } from '../core/start/steps.js';

/** The steps whose calls are folded. */
export type FoldedStep = 2 | 5 | 7 | 8;

/**
 * Every Start folds its calls: the patch START_FOLDED_CALLS is retired (step 2), its deprecated
 * marker made where patched() asked, once, at step 2. The Starts recorded with a call per step
 * replay against the build recorded before (test/histories/builds.json).
 */
export const foldingCalls = (): void => deprecatePatch(START_FOLDED_CALLS);

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
  ref?: TrainJobRef,
): Promise<F> {
  const [first, ...rest] = Object.keys(waitingFor).map(Number) as FoldedStep[];
  progress.enter(first!, waitingFor[first!]!);
  try {
    return await call();
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (!fromFailure(error)) return { stopped: { step: first!, reason: unansweredDetail(error) } } as F;
    const refusal = classify(error, first!, STAGES[first!].unanswered, `waiting for ${waitingFor[first!]}`, ref);
    const at = rest.find((step) => step === refusal.step);
    if (at !== undefined) progress.enter(at, waitingFor[at]!);
    throw refusal;
  }
}

/** What a fold's first attempt answered for each of its steps, and the step it stopped at, if any. */
export interface FoldAnswers {
  answered: Partial<Record<FoldedStep, { value: unknown }>>;
  stopped?: FoldStop;
}

/** Steps 2 and 5's fold: each step answered when its value came back. */
export const copyFoldAnswers = (fold: CopyFold): FoldAnswers => ({
  answered: { ...(fold.runtime ? { 2: { value: fold.runtime } } : {}), ...(fold.copy ? { 5: { value: fold.copy } } : {}) },
  ...(fold.stopped ? { stopped: fold.stopped } : {}),
});

/** Steps 7 and 8's fold: step 7 (no value) answered once the fold got to step 8. */
export const ownerFoldAnswers = (fold: OwnerFold): FoldAnswers => ({
  answered: {
    ...(fold.read || fold.stopped?.step === 8 ? { 7: { value: undefined } } : {}),
    ...(fold.read ? { 8: { value: fold.read } } : {}),
  },
  ...(fold.stopped ? { stopped: fold.stopped } : {}),
});
