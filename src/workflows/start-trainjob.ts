// StartTrainJob(StartRequest) -> StartResult (CONTRACT §1): the seed's nine steps as a durable
// workflow. Validation runs first ("Start first runs JobSpec.Validate"), then the backend gates.
import type { Settings } from '../activities/settings-activities.js';
import { DispatchError } from '../model/errors.js';
import type { StartResult } from '../model/results.js';
import { trainJobName } from '../core/names.js';
import { gateRefusal } from '../core/refusals.js';
import type { ValidRequest } from '../core/validated.js';
import { getSettings, prepareStart, usesLocalSteps } from './activity-proxies.js';
import { asWorkflowFailure, classify } from './failures.js';
import { ProgressReporter } from './progress.js';
import { runStart } from './run-start.js';

/** The settings and the validated request: from one local activity, or as Starts before the patch did. */
async function prepare(request: unknown, local: boolean): Promise<{ settings: Settings; valid: ValidRequest }> {
  if (local) {
    return prepareStart(request).catch((error: unknown) => Promise.reject(classify(error, 0, 'ErrUnreachable', 'preparing the Start')));
  }
  const settings = await getSettings();
  // Loaded only here, on replay of a Start recorded before LOCAL_STEPS_PATCH: "eager" puts the
  // module in the bundle without instantiating zod in every workflow that never gets here.
  const { validate } = await import(/* webpackMode: "eager" */ '../core/validate.js');
  return { settings, valid: validate(request) };
}

export async function StartTrainJob(request: unknown): Promise<StartResult> {
  const progress = new ProgressReporter('StartTrainJob');
  try {
    const local = usesLocalSteps();
    const { settings, valid } = await prepare(request, local);
    const { job, submission, attempt } = valid.request;
    progress.identify(job, settings.config.namespace, trainJobName(job, submission));

    progress.enter(1, `backend gates (attempt ${attempt})`);
    const refused = gateRefusal(settings.gates);
    if (refused) throw refused;

    const result = await runStart(valid, settings.config, progress, { local });
    progress.finish(`started ${result.ref}`);
    return result;
  } catch (error) {
    progress.finish(error instanceof DispatchError ? `${error.type} at step ${error.step}` : 'cancelled or failed');
    throw asWorkflowFailure(error);
  }
}
