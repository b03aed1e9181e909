// StartTrainJob(StartRequest) -> StartResult (CONTRACT §1): the seed's nine steps as a durable
// workflow. Validation runs first ("Start first runs JobSpec.Validate"), then the backend gates.
import type { Settings } from '../activities/settings-activities.js';
import { DispatchError } from '../model/errors.js';
import type { StartResult } from '../model/results.js';
import { trainJobName } from '../core/names.js';
import { gateRefusal } from '../core/refusals.js';
import { validate } from '../core/validate.js';
import { getSettings } from './activity-proxies.js';
import { asWorkflowFailure } from './failures.js';
import { ProgressReporter } from './progress.js';
import { runStart } from './run-start.js';

export async function StartTrainJob(request: unknown): Promise<StartResult> {
  const progress = new ProgressReporter('StartTrainJob');
  try {
    const settings: Settings = await getSettings();
    const valid = validate(request);
    const { job, submission, attempt } = valid.request;
    progress.identify(job, settings.config.namespace, trainJobName(job, submission));

    progress.enter(1, `backend gates (attempt ${attempt})`);
    const refused = gateRefusal(settings.gates);
    if (refused) throw refused;

    const result = await runStart(valid, settings.config, progress);
    progress.finish(`started ${result.ref}`);
    return result;
  } catch (error) {
    progress.finish(error instanceof DispatchError ? `${error.type} at step ${error.step}` : 'cancelled or failed');
    throw asWorkflowFailure(error);
  }
}
