// What a workflow needs before step 1, made in the worker's main thread as one local activity: the
// settings (configuration and latest preflight) and the request validated against the zod schemas.
// Validation is pure, but running it here keeps zod out of the workflow sandbox, where every cached
// workflow would instantiate its own copy of the schemas (~1 MB each; docs/performance.md). The
// result is recorded in the history, so a replay neither validates again nor reads newer settings.
import { ApplicationFailure } from '@temporalio/common';
import { DispatchError, toApplicationFailure } from '../model/errors.js';
import type { CapabilitiesQuery } from '../core/validate.js';
import { validate, validateCapabilitiesRequest } from '../core/validate.js';
import type { ValidRequest } from '../core/validated.js';
import { settingsOf, type Settings, type SettingsSource } from './settings-activities.js';

export interface PreparedStart {
  settings: Settings;
  valid: ValidRequest;
}

export interface PreparedCapabilities {
  settings: Settings;
  query: CapabilitiesQuery;
}

/** A refusal crosses to the workflow as its non-retryable ApplicationFailure; anything else is a bug. */
function refused(error: unknown): ApplicationFailure {
  if (error instanceof DispatchError) return toApplicationFailure(error);
  throw error;
}

export function prepareActivities(source: SettingsSource) {
  return {
    async prepareStart(request: unknown): Promise<PreparedStart> {
      try {
        return { settings: settingsOf(source), valid: validate(request) };
      } catch (error) {
        throw refused(error);
      }
    },
    async prepareCapabilities(request: unknown): Promise<PreparedCapabilities> {
      try {
        return { settings: settingsOf(source), query: validateCapabilitiesRequest(request) };
      } catch (error) {
        throw refused(error);
      }
    },
  };
}
