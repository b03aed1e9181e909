// StartTrainJob(StartRequest) -> StartResult (docs/contract.md §1): the nine steps of Start as a
// durable workflow. Validation runs first, then the backend gates.
import { isCancellation } from '@temporalio/workflow';
import { DispatchError } from '../model/errors.js';
import type { StartResult } from '../model/results.js';
import { trainJobName } from '../core/start/names.js';
import { startSummary } from '../contract/summaries.js';
import { gateRefusal } from '../core/start/refusals.js';
import { prepareStart } from './activity-proxies.js';
import { asWorkflowFailure } from './failures.js';
import { ProgressReporter } from './progress.js';
import { runStart } from './run-start.js';
import { removeCopyThenRefuse, removesCopyFirst } from './gate-refusal.js';
import { runStep } from './run-step.js';
import { stepLabel } from '../core/start/steps.js';
import { WorkflowTypes } from '../contract/names.js';

export async function StartTrainJob(request: unknown): Promise<StartResult> {
  const progress = new ProgressReporter(WorkflowTypes.start);
  try {
    const { settings, valid } = await runStep(progress, 'validate', 'the request to be validated', () => prepareStart(request));
    const { namespace } = settings.config;
    const { job, submission } = valid.request;
    const name = trainJobName(job, submission);
    progress.identify(job, namespace, name, startSummary(valid.request, namespace, name));

    progress.enter(1, `backend gates (attempt ${valid.request.attempt})`);
    const refused = gateRefusal(settings.gates);
    if (refused && !removesCopyFirst(settings.gates)) throw refused;
    if (refused) throw await removeCopyThenRefuse(refused, settings.config, name, valid.request.attempt, progress.taskEnd);

    const result = await runStart(valid, settings.config, progress);
    progress.finish(`started ${result.ref}`);
    return result;
  } catch (error) {
    progress.finish(endedAt(error, progress));
    throw asWorkflowFailure(error);
  }
}

/** What DispatchStep reads after a Start that did not succeed: the outcome and the step it ended at. */
export function endedAt(error: unknown, progress: ProgressReporter): string {
  // A refusal of the phase the Start is in reads as that phase ("ErrInvalid at step 4 validate request").
  if (error instanceof DispatchError) return `${error.type} at step ${error.step === progress.step ? progress.label : stepLabel(error.step)}`;
  return `${isCancellation(error) ? 'cancelled' : 'failed'} at step ${progress.label}`;
}
