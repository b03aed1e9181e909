// TrainJobCapabilities(CapabilitiesRequest) -> Capabilities: the runtime rules only, for planning.
// ProcsPerNode is answered, never refused, here.
import type { Capabilities } from '../model/results.js';
import { capabilities } from '../core/capabilities.js';
import { allowListRefusal } from '../core/refusals.js';
import { runtimeKey } from '../core/validated.js';
import { validateCapabilitiesRequest } from '../core/validate.js';
import { activitiesFor, getSettings } from './activity-proxies.js';
import { asWorkflowFailure, classify } from './failures.js';

export async function TrainJobCapabilities(request: unknown): Promise<Capabilities> {
  try {
    const { config } = await getSettings();
    const query = validateCapabilitiesRequest(request);
    const key = runtimeKey(query.runtime);
    const notAllowed = allowListRefusal(query.runtime, config);
    if (notAllowed) throw notAllowed;
    const runtime = await activitiesFor(config)
      .readRuntime({ namespace: config.namespace, runtime: query.runtime })
      .catch((error: unknown) => Promise.reject(classify(error, 2, 'ErrUnreachable', `reading runtime ${key}`)));
    return capabilities(runtime, query.runtime, config);
  } catch (error) {
    throw asWorkflowFailure(error);
  }
}
