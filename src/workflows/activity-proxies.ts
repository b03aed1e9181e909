// Activity options derived from the configuration a Start runs with: every Kubernetes call is
// retried with backoff until CallBound (timeouts.call); definite refusals are never retried.
import {
  patched,
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
  type LocalActivityOptions,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { ERROR_TYPES } from '../model/errors.js';

/** The settings are read from the worker's memory: a local activity, recorded in the history. */
export const { getSettings, prepareStart, prepareCapabilities } = proxyLocalActivities<Activities>({ startToCloseTimeout: '10s' });

/**
 * Patch (docs/versioning.md): the Kubernetes calls of steps 2, 5, 7 and 8 (and the compensation's
 * stop) run as local activities, so that a Start's steps 2-8 take two workflow tasks and one
 * activity task (step 6) instead of six and five (docs/performance.md); the request is validated
 * in the worker's main thread by the prepareStart local activity, keeping zod out of the workflow
 * sandbox. Workflows recorded before it replay unpatched (test/histories/01-baseline,
 * 02-coalesce-progress-upserts). Checked once, at the start of each workflow, and the answer
 * passed along.
 */
export const LOCAL_STEPS_PATCH = 'local-start-steps';

export const usesLocalSteps = (): boolean => patched(LOCAL_STEPS_PATCH);

const retry: RetryPolicy = {
  initialInterval: '200ms',
  backoffCoefficient: 2,
  maximumInterval: '5s',
  nonRetryableErrorTypes: [...ERROR_TYPES],
};

/** How often the Workload wait must heartbeat; it checks every second. */
const WORKLOAD_HEARTBEAT = '10s';

/**
 * How soon a worker lost in the middle of a Kubernetes call is noticed (the activities heartbeat
 * while they run): a quarter of CallBound, between 1 s and 10 s, so that the retry on another
 * worker still fits in CallBound.
 */
export const lostWorkerMs = (callMs: number) => Math.min(10_000, Math.max(1_000, Math.round(callMs / 4)));

/**
 * The Kubernetes calls, as local activities (`local`, under LOCAL_STEPS_PATCH) or as activity
 * tasks. A local activity cannot heartbeat: a worker lost mid-call is noticed when its workflow
 * task times out (10 s by default) and another worker runs the task's calls again from its start,
 * which the activities allow as they allow any retry (each create adopts what its attempt made).
 */
export function activitiesFor(config: Config, local = false) {
  const callMs = toMillis(parseGoDuration(config.timeouts.call)!);
  const workloadMs = toMillis(parseGoDuration(config.timeouts.workload)!);
  const kubeCall = (summary: string): ActivityOptions => ({
    summary,
    startToCloseTimeout: callMs,
    scheduleToCloseTimeout: callMs,
    heartbeatTimeout: lostWorkerMs(callMs),
    retry,
  });
  const localKubeCall = (summary: string): LocalActivityOptions => ({
    summary,
    startToCloseTimeout: callMs,
    scheduleToCloseTimeout: callMs,
    retry,
    // Every retry waits on a workflow timer, never inside the worker: the SDK (1.24) drops a
    // schedule-to-close timeout that falls in a worker-side backoff, and retried past CallBound
    // for as long as the API stayed silent. The timer also ends the workflow task, so an operator
    // sees the step a failing call is stuck at while it backs off.
    localRetryThreshold: 0,
  });
  const call = (summary: string) =>
    local ? proxyLocalActivities<Activities>(localKubeCall(summary)) : proxyActivities<Activities>(kubeCall(summary));
  return {
    readRuntime: call('read the source runtime').readRuntime,
    createRuntimeCopy: call('create the runtime copy').createRuntimeCopy,
    // Step 6 stays an activity task in both versions. A local activity's result becomes durable only
    // when its workflow task completes, so a worker lost after step 7 would have the next worker run
    // steps 2-8 again, and step 5 would then find the copy owned (step 7 set its owner) and refuse
    // it as a retried Start must: a TrainJob left behind (test/reliability/worker-crash.test.ts).
    // Scheduling step 6 ends the first workflow task with step 5's result recorded, so no copy is
    // ever created twice within a Start; and the create whose answer can be lost after it acted
    // heartbeats, so a lost worker is noticed within a quarter of CallBound.
    createTrainJob: proxyActivities<Activities>(kubeCall('create the TrainJob')).createTrainJob,
    setOwner: call("set the copy's owner to the TrainJob").setOwner,
    readBack: call('read the TrainJob back').readBack,
    stopTrainJob: call('stop the TrainJob (compensation)').stopTrainJob,
    checkReach: call('preflight: reach').checkReach,
    checkWrite: call('preflight: write').checkWrite,
    waitForWorkload: proxyActivities<Activities>({
      summary: 'wait for the Workload (gate and admission check)',
      // A worker lost mid-wait is noticed within the heartbeat timeout; the retry resumes the deadline.
      startToCloseTimeout: workloadMs + callMs,
      scheduleToCloseTimeout: workloadMs + 2 * callMs,
      heartbeatTimeout: WORKLOAD_HEARTBEAT,
      retry,
    }).waitForWorkload,
  };
}

export type StartActivities = ReturnType<typeof activitiesFor>;
