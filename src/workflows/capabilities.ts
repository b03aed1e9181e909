// TrainJobCapabilities(CapabilitiesRequest) -> Capabilities: the runtime rules only, for planning.
// ProcsPerNode is answered, never refused, here.
import type { Capabilities } from '../model/results.js';
import type { Config } from '../model/config.js';
import { capabilities } from '../core/capabilities.js';
import { allowListRefusal } from '../core/refusals.js';
import type { CapabilitiesQuery } from '../core/validate.js';
import { runtimeKey } from '../core/validated.js';
import { activitiesFor, getSettings, prepareCapabilities, usesLocalSteps } from './activity-proxies.js';
import { asWorkflowFailure, classify } from './failures.js';

/** The configuration and the validated query (see StartTrainJob's prepare). */
async function prepare(request: unknown, local: boolean): Promise<{ config: Config; query: CapabilitiesQuery }> {
  if (local) {
    const { settings, query } = await prepareCapabilities(request).catch((error: unknown) =>
      Promise.reject(classify(error, 0, 'ErrUnreachable', 'preparing the query')),
    );
    return { config: settings.config, query };
  }
  const { config } = await getSettings();
  const { validateCapabilitiesRequest } = await import(/* webpackMode: "eager" */ '../core/validate.js');
  return { config, query: validateCapabilitiesRequest(request) };
}

export async function TrainJobCapabilities(request: unknown): Promise<Capabilities> {
  try {
    const local = usesLocalSteps();
    const { config, query } = await prepare(request, local);
    const key = runtimeKey(query.runtime);
    const notAllowed = allowListRefusal(query.runtime, config);
    if (notAllowed) throw notAllowed;
    const runtime = await activitiesFor(config, local)
      .readRuntime({ namespace: config.namespace, runtime: query.runtime })
      .catch((error: unknown) => Promise.reject(classify(error, 2, 'ErrUnreachable', `reading runtime ${key}`)));
    return capabilities(runtime, query.runtime, config);
  } catch (error) {
    throw asWorkflowFailure(error);
  }
}
