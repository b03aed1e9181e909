// Activity options derived from the configuration a Start runs with: every Kubernetes call is
// retried with backoff until CallBound (timeouts.call); definite refusals are never retried.
import {
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  TimeoutFailure,
  type ActivityOptions,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { ERROR_TYPES } from '../model/errors.js';
import { ACTIVITY_LABELS, STAGES, stageLabel, STEPS, stepLabel, type ActivityOf, type CallStep } from '../core/start/steps.js';

/**
 * The settings, and the request validated with them, are read in the worker's main thread by local
 * activities, recorded in the history: zod stays out of the workflow sandbox.
 */
const settingsCall = (summary: string, startToCloseTimeout = '10s') => proxyLocalActivities<Activities>({ summary, startToCloseTimeout });
/**
 * prepareStart waits up to CallBound (at most 9 minutes: prepare-activities.ts) for definite gates.
 * A local activity's timeout is not recorded in the history, so replay does not depend on it.
 */
export const prepareStart = settingsCall(ACTIVITY_LABELS.prepareStart, '10m').prepareStart;
export const getSettings = settingsCall(ACTIVITY_LABELS.getSettings).getSettings;
export const prepareCapabilities = settingsCall(ACTIVITY_LABELS.prepareCapabilities).prepareCapabilities;

export const retry: RetryPolicy = {
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

/** Kubernetes calls as local activities, each bounded by CallBound (callMs) with its retries. */
export const localKubeCalls = (summary: string, callMs: number) =>
  proxyLocalActivities<Activities>({
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

/** The first backoff of `retry`: a local call's first retry waits this long. */
const FIRST_BACKOFF_MS = 200;

/**
 * What the calls tell the Start's progress (progress.ts: one upsert per workflow task) just before the
 * workflow waits on something that ends its workflow task: an activity task, or a local call's
 * backoff timer.
 */
export interface TaskEnd {
  flush(): void;
}

/**
 * Whether `retry` would retry a local call that failed so: not cancelled, not past its bound (a
 * timeout), and not of a type the policy names non-retryable (a definite refusal). The failure an
 * attempt of a local activity ends with may come wrapped in an ActivityFailure or not.
 */
function retriedByPolicy(error: unknown): boolean {
  if (isCancellation(error)) return false;
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (current instanceof TimeoutFailure) return false;
    if (current instanceof ApplicationFailure) return !(retry.nonRetryableErrorTypes ?? []).includes(current.type ?? '');
  }
  return false;
}

type Call<A extends unknown[], R> = (...args: A) => Promise<R>;

/**
 * A local call whose first retry flushes the Start's search attributes first: the first attempt
 * alone, then, once `taskEnd` has flushed and the first backoff has passed on its timer, the rest
 * of `retry` (from the second backoff on) within CallBound less that backoff. The backoffs are
 * `retry`'s, the classification of the last failure the same; only the step an operator reads is
 * sent before the workflow task ends on the timer, rather than after each local activity.
 * The first attempt's own time is not taken off the bound: the workflow clock does not move while
 * a workflow task runs its local activities, so it cannot tell that time from the time of the
 * calls before it in the task, and taking both off could leave a call retried less than before (or
 * not at all, on a loaded worker). A call whose every attempt fails at once retries as long as
 * before; one whose first request hung may retry up to that request's timeout longer.
 */
function firstThenRetry<A extends unknown[], R>(
  callMs: number,
  taskEnd: TaskEnd,
  proxy: (options: { timeoutMs: number; retry: RetryPolicy }) => Call<A, R>,
): Call<A, R> {
  const rest = retryAfterFirst(callMs, taskEnd, proxy);
  return async (...args: A) => {
    try {
      return await proxy({ timeoutMs: callMs, retry: { ...retry, maximumAttempts: 1 } })(...args);
    } catch (error) {
      if (!retriedByPolicy(error) || callMs <= FIRST_BACKOFF_MS) throw error;
      return rest(...args);
    }
  };
}

/**
 * The rest of `retry` after a first attempt that failed retryably (firstThenRetry's, or a fold's:
 * folded-steps.ts): flush, the first backoff on its timer, then the retries from the second backoff
 * on, within CallBound less that backoff (a CallBound of at most that backoff leaves none: see `retriesAfterFirst`).
 */
function retryAfterFirst<A extends unknown[], R>(
  callMs: number,
  taskEnd: TaskEnd,
  proxy: (options: { timeoutMs: number; retry: RetryPolicy }) => Call<A, R>,
): Call<A, R> {
  return async (...args: A) => {
    taskEnd.flush();
    await sleep(FIRST_BACKOFF_MS);
    return proxy({ timeoutMs: callMs - FIRST_BACKOFF_MS, retry: { ...retry, initialInterval: 2 * FIRST_BACKOFF_MS } })(...args);
  };
}

/**
 * The Kubernetes calls. Steps 2, 5, 7 and 8 and Start's undo run as local activities, so
 * that a Start's steps 2-8 take two workflow tasks and one activity task (docs/performance.md). A
 * local activity cannot heartbeat: a worker lost mid-call is noticed when its workflow task times
 * out (10 s by default) and another worker runs the task's calls again from its start, which the
 * activities allow as they allow any retry (each create adopts what its attempt made). Each step's
 * call carries its step label (steps.ts) as its summary, as the UI shows it.
 */
export function activitiesFor(config: Config, taskEnd?: TaskEnd) {
  const callMs = toMillis(parseGoDuration(config.timeouts.call)!);
  const workloadMs = toMillis(parseGoDuration(config.timeouts.workload)!);
  const kubeCall = (summary: string): ActivityOptions => ({
    summary,
    startToCloseTimeout: callMs,
    scheduleToCloseTimeout: callMs,
    heartbeatTimeout: lostWorkerMs(callMs),
    retry,
  });
  // With a TaskEnd (a Start's, progress.ts): each local call flushes before its first backoff, each
  // activity task before it is scheduled. Without one (TrainJobCapabilities), the plain calls.
  const proxyOf =
    <K extends keyof Activities>(summary: string, name: K) =>
    ({ timeoutMs, retry: policy }: { timeoutMs: number; retry: RetryPolicy }) =>
      proxyLocalActivities<Activities>({
        summary,
        startToCloseTimeout: timeoutMs,
        scheduleToCloseTimeout: timeoutMs,
        retry: policy,
        localRetryThreshold: 0,
      })[name] as Call<Parameters<Activities[K]>, Awaited<ReturnType<Activities[K]>>>;
  const local = <K extends keyof Activities>(summary: string, name: K): Activities[K] => {
    if (!taskEnd) return localKubeCalls(summary, callMs)[name];
    return firstThenRetry(callMs, taskEnd, proxyOf(summary, name)) as unknown as Activities[K];
  };
  // A fold's first attempt alone (folded-steps.ts goes on with the step's own call), and a step's
  // call after a first attempt its fold made.
  const firstOnly = <K extends keyof Activities>(name: K): Activities[K] =>
    proxyOf(ACTIVITY_LABELS[name], name)({ timeoutMs: callMs, retry: { ...retry, maximumAttempts: 1 } }) as unknown as Activities[K];
  const restOf = <P extends CallStep>(end: TaskEnd, p: P): Activities[ActivityOf<P>] =>
    retryAfterFirst(callMs, end, proxyOf(stageLabel(p), STAGES[p].activity as ActivityOf<P>)) as unknown as Activities[ActivityOf<P>];
  const task = <F extends Call<never[], unknown>>(call: F): F => {
    if (!taskEnd) return call;
    return ((...args: Parameters<F>) => {
      taskEnd.flush();
      return call(...args);
    }) as F;
  };
  const localStep = <P extends CallStep>(p: P) => local(stageLabel(p), STAGES[p].activity as ActivityOf<P>);
  return {
    readRuntime: localStep(2),
    createRuntimeCopy: localStep(5),
    // Step 6 is an activity task. A local activity's result becomes durable only when its workflow
    // task completes, so a worker lost after step 7 would have the next worker run steps 2-8 again,
    // and step 5 would then find the copy owned (step 7 set its owner) and refuse it as a retried
    // Start must: a TrainJob left behind (test/reliability/worker-crash.test.ts). Scheduling step 6
    // ends the first workflow task with step 5's result recorded, so no copy is ever created twice
    // within a Start; and the create whose answer can be lost after it acted heartbeats, so a lost
    // worker is noticed within a quarter of CallBound.
    createTrainJob: task(proxyActivities<Activities>(kubeCall(stepLabel(6)))[STEPS[6].activity]),
    setOwner: localStep(7),
    readBack: localStep(8),
    // Start's folds (folded-steps.ts): steps 2 and 5, and 7 and 8, on their first attempt in one
    // local activity each; a step a fold stopped at goes on with its `retried` call (with a TaskEnd,
    // as every Start's calls have).
    readRuntimeThenCopy: firstOnly('readRuntimeThenCopy'),
    setOwnerThenReadBack: firstOnly('setOwnerThenReadBack'),
    ...(taskEnd
      ? { retried: { readRuntime: restOf(taskEnd, 2), createRuntimeCopy: restOf(taskEnd, 5), setOwner: restOf(taskEnd, 7), readBack: restOf(taskEnd, 8) } }
      : {}),
    /** Whether CallBound leaves a retry after a first attempt (it is longer than the first backoff). */
    retriesAfterFirst: callMs > FIRST_BACKOFF_MS,
    // Start's undo, registered as the activity type `stopTrainJob` (recorded histories name it so).
    undoStart: local(ACTIVITY_LABELS.stopTrainJob, 'stopTrainJob'),
    checkReach: local(ACTIVITY_LABELS.checkReach, 'checkReach'),
    checkWrite: local(ACTIVITY_LABELS.checkWrite, 'checkWrite'),
    waitForWorkload: task(proxyActivities<Activities>({
      summary: stepLabel(9),
      // A worker lost mid-wait is noticed within the heartbeat timeout; the retry resumes the deadline.
      // The wait itself may last timeouts.workload + CallBound (unanswered checks do not count, up
      // to CallBound), and its last check up to CallBound more.
      startToCloseTimeout: workloadMs + 2 * callMs,
      scheduleToCloseTimeout: workloadMs + 3 * callMs,
      heartbeatTimeout: WORKLOAD_HEARTBEAT,
      retry,
    })[STEPS[9].activity]),
  };
}

export type StartActivities = ReturnType<typeof activitiesFor>;
