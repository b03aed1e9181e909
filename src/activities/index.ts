// All activities, built once per worker with their dependencies (samples-typescript's
// activities-dependency-injection). Workflows take the type only.
import { keepingAlive } from './context.js';
import type { KubeClients } from './kube-clients.js';
import { gateActivities } from './gate-activities.js';
import { prepareActivities } from './prepare-activities.js';
import { runtimeActivities } from './runtime-activities.js';
import { settingsActivities, type SettingsSource } from './settings-activities.js';
import { trainJobActivities } from './trainjob-activities.js';
import { workloadActivities } from './workload-activities.js';
import { WorkloadChecks } from './workload-checks.js';

/** One HTTP request's bound: short enough that several retries fit in the default CallBound of 30 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export interface ActivityDeps {
  kube: KubeClients;
  settings: SettingsSource;
  requestTimeoutMs?: number;
}

/** The same activities, each heartbeating while it runs (keepingAlive). */
function keptAlive<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  return Object.fromEntries(Object.entries(activities).map(([name, fn]) => [name, keepingAlive(fn)])) as T;
}

export function createActivities(deps: ActivityDeps) {
  const env = { kube: deps.kube, requestTimeoutMs: deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS };
  return {
    ...settingsActivities(deps.settings),
    ...prepareActivities(deps.settings),
    ...keptAlive(gateActivities(env)),
    ...keptAlive(runtimeActivities(env)),
    ...keptAlive(trainJobActivities(env)),
    // The Workload wait heartbeats on its own, with the deadline a retry resumes.
    ...workloadActivities(new WorkloadChecks(env.kube, env.requestTimeoutMs)),
  };
}

export type Activities = ReturnType<typeof createActivities>;
