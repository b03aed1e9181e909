// TrainJobCapabilities(CapabilitiesRequest) -> Capabilities: the runtime rules only, for planning.
// ProcsPerNode is answered, never refused, here.
import type { Capabilities } from '../model/results.js';
import type { Config } from '../model/config.js';
import { capabilities } from '../core/start/capabilities.js';
import { allowListRefusal } from '../core/start/refusals.js';
import type { CapabilitiesQuery } from '../core/start/validate.js';
import { runtimeKey } from '../core/objects/runtime-name.js';
import { activitiesFor, prepareCapabilities } from './activity-proxies.js';
import { asWorkflowFailure, classify } from './failures.js';
import { STEPS, VALIDATE } from '../core/start/steps.js';

/** The configuration and the validated query, from one local activity (as StartTrainJob's step 4 checks, run first). */
async function prepare(request: unknown): Promise<{ config: Config; query: CapabilitiesQuery }> {
  const { settings, query } = await prepareCapabilities(request).catch((error: unknown) =>
    Promise.reject(classify(error, VALIDATE.step, VALIDATE.unanswered, 'waiting for the query to be validated')),
  );
  return { config: settings.config, query };
}

export async function TrainJobCapabilities(request: unknown): Promise<Capabilities> {
  try {
    const { config, query } = await prepare(request);
    const key = runtimeKey(query.runtime);
    const notAllowed = allowListRefusal(query.runtime, config);
    if (notAllowed) throw notAllowed;
    const runtime = await activitiesFor(config)
      .readRuntime({ namespace: config.namespace, runtime: query.runtime })
      .catch((error: unknown) => Promise.reject(classify(error, 2, STEPS[2].unanswered, `waiting for runtime ${key}`)));
    return capabilities(runtime, query.runtime, config);
  } catch (error) {
    throw asWorkflowFailure(error);
  }
}
