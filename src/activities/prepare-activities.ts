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
import { settingsOf, type Settings, type SettingsView } from './settings-activities.js';

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
    async prepareStart(request: unknown): Promise<PreparedStart> {
      return { settings: settingsOf(source), valid: validate(request) };
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
