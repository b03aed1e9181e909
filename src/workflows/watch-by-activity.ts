// WatchTrainJob as it waited before docs/contract.md §9b, kept for the Watches that began without
// the patch `watch-woken` (watch-trainjob.ts): their histories replay it, and a Watch running it
// keeps running it until it ends or continues as new (the next run waits as §9b says).
//
// The waiting is one heartbeating activity with batched checks (watch-activities.ts); it returns
// when the phase changes, so the workflow sets DispatchPhase as it learns it, and after an hour, so
// a long Watch's history stays a few events an hour (and continues as new when long). It never
// gives up on an API that does not answer (docs/contract.md §9a): the activity returns once the
// silence has lasted timeouts.call, and the current details say since when until it answers.
import { continueAsNew, workflowInfo } from '@temporalio/workflow';
import { DispatchError } from '../model/errors.js';
import type { Outcome, Phase } from '../model/operations.js';
import { WATCH_SLICE_MS } from './operation-proxies.js';
import { classifyOperationCall } from './operation-failures.js';
import type { OperationContext } from './run-operation.js';
import { showOutcome } from './watch-woken.js';

/** Checks between two calls of the Watch activity, as its details say. */
const CHECKED_EVERY = 'checked every 3 s';

export async function watchByActivity(input: unknown, { ref, config, calls, progress, declarative }: OperationContext): Promise<Outcome> {
  let shown: Phase | undefined;
  let unansweredSince: string | undefined;
  for (;;) {
    const silence = unansweredSince === undefined ? '' : `; the API has not answered since ${unansweredSince}`;
    progress.waiting(`TrainJob ${ref.namespace}/${ref.name} to complete, fail or go (${CHECKED_EVERY})${silence}`);
    const answer = await calls
      .watchTrainJob({ config, ref, sliceMs: WATCH_SLICE_MS, ...(shown ? { shownPhase: shown } : {}), ...(unansweredSince ? { unansweredSince } : {}) })
      .catch(classifyOperationCall('the TrainJob to be watched', ref));
    if ('unanswered' in answer) {
      unansweredSince = answer.unanswered.since;
      continue;
    }
    unansweredSince = undefined;
    if ('refused' in answer) {
      if (declarative) progress.observed(answer.state.phase, answer.state.reasons);
      throw new DispatchError('ErrRejected', answer.refused, 0, ref);
    }
    if ('outcome' in answer) return showOutcome(progress, answer.outcome);
    shown = answer.state.phase;
    progress.observed(shown, answer.state.reasons);
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<(input: unknown) => Promise<Outcome>>(input);
  }
}
