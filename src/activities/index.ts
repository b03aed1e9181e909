// All activities, built once per worker with their dependencies (samples-typescript's
// activities-dependency-injection). Workflows take the type only.
//
// Errors, one convention for every activity: a definite refusal is thrown as a DispatchError
// (type, reasons, step, ref?); a call the Kubernetes API left unanswered throws src/kube's
// KubeUnanswered; anything else is a bug. failures.ts turns them into Temporal's failures, here
// (typedFailures) and nowhere else.
import type { ActivityType } from '../contract/names.js';
import { BatchedLists } from '../kube/batched-lists.js';
import { keepingAlive } from './context.js';
import { logKubeCallsToActivities } from './kube-call-log.js';
import { eachActivity, typedFailures } from './failures.js';
import { foldedStartActivities, type TimeStep } from './folded-start-activities.js';
import type { KubeClients, WorkerClusterClients } from '../kube/clients.js';
import type { RememberedFailures } from '../core/operations/node-failures.js';
import { gateActivities } from './gate-activities.js';
import { guardNamespace, type OnForeignWorkflow } from './namespace-guard.js';
import { operationActivities } from './operation-activities.js';
import { prepareActivities } from './prepare-activities.js';
import { runtimeActivities } from './runtime-activities.js';
import { settingsActivities, type SettingsView } from './settings-activities.js';
import { trainJobActivities } from './trainjob-activities.js';
import { undoStartActivities } from './undo-start-activities.js';
import { watchActivities, type CountUnanswered } from './watch-activities.js';
import { watchCheckActivities } from './watch-check.js';
import { MultiKueueClusterReads } from './worker-cluster-reads.js';
import type { SharedLists } from '../kube/shared-lists.js';
import { workloadActivities } from './workload-activities.js';
import { WorkloadChecks } from '../kube/workload-checks.js';

/** One HTTP request's bound: short enough that several retries fit in the default CallBound of 30 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export interface ActivityDeps {
  kube: KubeClients;
  /** MultiKueue: the worker clusters' clients, by name (kube/clients.ts createWorkerClusterClients). */
  workerClusters?: WorkerClusterClients;
  /** MultiKueue: the failed node containers this worker's watch saw on the worker clusters (src/worker/exit-code-memory.ts). */
  exitCodes?: RememberedFailures;
  settings: SettingsView;
  requestTimeoutMs?: number;
  /** The lists the Workload waits and the Watches share; by default batched lists with no watch. */
  lists?: SharedLists;
  /** Counts a Watch's calls the API left unanswered (the worker's dispatch_watch_unanswered_calls_total). */
  countWatchUnanswered?: CountUnanswered;
  /** Times each step's call inside a fold of Start's calls (the worker's dispatch_step_duration_seconds). */
  timeStep?: TimeStep;
  /** Told of each workflow refused for naming another namespace (the worker's metric and log). */
  onForeignWorkflow?: OnForeignWorkflow;
  /** MultiKueue: the manager's MultiKueueClusters as read for this worker, shared with its Watch waker; by default one of its own. */
  clusterReads?: MultiKueueClusterReads;
}

type ActivityFn = (...args: never[]) => Promise<unknown>;

/** The same activities, each heartbeating while it runs (keepingAlive). */
const keptAlive = <T extends Record<string, ActivityFn>>(activities: T): T => eachActivity(activities, keepingAlive);

export function createActivities(deps: ActivityDeps) {
  logKubeCallsToActivities();
  const env = {
    kube: deps.kube,
    requestTimeoutMs: deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(deps.workerClusters ? { workerClusters: deps.workerClusters } : {}),
    ...(deps.exitCodes ? { exitCodes: deps.exitCodes } : {}),
  };
  // One per worker: the Workload waits and the Watches of every workflow share its lists.
  const lists = deps.lists ?? new BatchedLists(env.kube, env.requestTimeoutMs);
  // MultiKueue: the manager's MultiKueueClusters, each read shared by every Watch for a few seconds.
  const reads = deps.clusterReads ?? new MultiKueueClusterReads(env.kube, env.requestTimeoutMs);
  const runtimeCalls = runtimeActivities(env);
  const trainJobCalls = trainJobActivities(env, deps.settings);
  const place = () => ({ namespace: deps.settings.config.namespace, taskQueue: deps.settings.config.temporal.taskQueue });
  const activities = {
    ...settingsActivities(deps.settings),
    ...prepareActivities(deps.settings),
    ...keptAlive(gateActivities(env)),
    ...keptAlive(runtimeCalls),
    ...keptAlive(trainJobCalls),
    // Steps 2 and 5, 7 and 8, on their first attempt (local activities: nothing to heartbeat).
    ...foldedStartActivities({ ...runtimeCalls, ...trainJobCalls }, deps.timeStep),
    ...keptAlive(undoStartActivities(env)),
    // The Workload wait heartbeats on its own, with the deadline a retry resumes.
    ...workloadActivities(new WorkloadChecks(lists)),
    ...keptAlive(operationActivities(env, reads)),
    // Watch heartbeats on its own, with each check.
    ...watchActivities(env, lists, deps.countWatchUnanswered, reads),
    // A woken Watch's one read (docs/contract.md §9b), a local activity.
    ...watchCheckActivities(env, lists, deps.countWatchUnanswered, reads),
  };
  return typedFailures(guardNamespace(activities, place, deps.onForeignWorkflow));
}

export type Activities = ReturnType<typeof createActivities>;

// The activity types are the contract's (src/contract/names.ts): one more, one fewer or one renamed
// here fails to compile.
type Unnamed = Exclude<keyof Activities, ActivityType> | Exclude<ActivityType, keyof Activities>;
const everyTypeNamed: [Unnamed] extends [never] ? true : Unnamed = true;
void everyTypeNamed;
