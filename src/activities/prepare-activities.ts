// What a workflow needs before step 1, made in the worker's main thread as one local activity: the
// settings (configuration and latest preflight) and the request validated against the zod schemas.
// Validation is pure, but running it here keeps zod out of the workflow sandbox, where every cached
// workflow would instantiate its own copy of the schemas (~1 MB each; docs/performance.md). The
// result is recorded in the history, so a replay neither validates again nor reads newer settings.
// A refused request is the DispatchError validate throws (index.ts makes it the failure).
import type { CapabilitiesQuery } from '../core/start/validate.js';
import { validate, validateCapabilitiesRequest } from '../core/start/validate.js';
import type { ValidRequest } from '../core/start/validated.js';
import { validateTrainJobRef } from '../core/operations/validate-ref.js';
import type { TrainJobRef } from '../model/operations.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import type { Config } from '../model/config.js';
import { settingsOf, type Settings, type SettingsView } from './settings-activities.js';

/**
 * How long step 1 waits for definite gates: CallBound, within the bound of the local activity that
 * waits (activity-proxies.ts, PREPARE_START_TIMEOUT).
 */
export const gateWaitMs = (config: Config): number => Math.min(toMillis(parseGoDuration(config.timeouts.call)!), GATE_WAIT_MAX_MS);

/** The longest wait for definite gates, whatever CallBound is: under prepareStart's timeout of 10 minutes. */
export const GATE_WAIT_MAX_MS = 9 * 60_000;

export interface PreparedStart {
  settings: Settings;
  valid: ValidRequest;
}

export interface PreparedCapabilities {
  settings: Settings;
  query: CapabilitiesQuery;
}

export interface PreparedOperation {
  settings: Settings;
  ref: TrainJobRef;
}

export function prepareActivities(source: SettingsView) {
  return {
    /**
     * A valid request waits up to CallBound for definite gates (docs/contract.md §8): a worker
     * that has just started, or is proving its gates again after a fault, answers the Start from
     * its next preflight rather than refusing it at once. An invalid one is refused at once.
     */
    async prepareStart(request: unknown): Promise<PreparedStart> {
      const valid = validate(request);
      const gates = source.definiteGates ? await source.definiteGates(gateWaitMs(source.config)) : source.latestGates();
      return { settings: settingsOf(source, gates), valid };
    },
    async prepareCapabilities(request: unknown): Promise<PreparedCapabilities> {
      return { settings: settingsOf(source), query: validateCapabilitiesRequest(request) };
    },
    /** Open, Hold, Release, Stop and Watch: the settings, and the TrainJobRef checked. */
    async prepareOperation(input: unknown): Promise<PreparedOperation> {
      return { settings: settingsOf(source), ref: validateTrainJobRef(input) };
    },
  };
}
