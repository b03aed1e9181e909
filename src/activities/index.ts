// All activities, built once per worker with their dependencies (samples-typescript's
// activities-dependency-injection). Workflows take the type only.
import type { KubeClients } from './kube-clients.js';
import { gateActivities } from './gate-activities.js';
import { runtimeActivities } from './runtime-activities.js';
import { settingsActivities, type SettingsSource } from './settings-activities.js';
import { trainJobActivities } from './trainjob-activities.js';
import { workloadActivities } from './workload-activities.js';

/** One HTTP request's bound: short enough that several retries fit in the default CallBound of 30 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export interface ActivityDeps {
  kube: KubeClients;
  settings: SettingsSource;
  requestTimeoutMs?: number;
}

export function createActivities(deps: ActivityDeps) {
  const env = { kube: deps.kube, requestTimeoutMs: deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS };
  return {
    ...settingsActivities(deps.settings),
    ...gateActivities(env),
    ...runtimeActivities(env),
    ...trainJobActivities(env),
    ...workloadActivities(env),
  };
}

export type Activities = ReturnType<typeof createActivities>;
