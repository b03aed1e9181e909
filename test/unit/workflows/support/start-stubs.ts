// Stubbed activities for running the real StartTrainJob workflow without a cluster: plain
// functions under the real activity names, each answering as the API server would, or not at all
// (the retryable KubeUnanswered failure the real kube-call throws), or with a definite refusal.
// Every call is recorded with its input, so a test can say exactly what the workflow asked for.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Activities } from '../../../../src/activities/index.js';
import { UNANSWERED } from '../../../../src/activities/failures.js';
import { foldedStartActivities } from '../../../../src/activities/folded-start-activities.js';
import { validate } from '../../../../src/core/start/validate.js';
import { ConfigSchema, type Config, type ConfigInput } from '../../../../src/model/config.js';
import { DispatchError, type ErrorType } from '../../../../src/model/errors.js';
import { toApplicationFailure } from '../../../../src/model/error-failures.js';
import type { TrainerRuntime, TrainJob } from '../../../../src/model/kube.js';
import type { BackendGates } from '../../../../src/model/results.js';
import { metricsWorkerOptions } from '../../../../src/observability/interceptors.js';
import { createDispatchMetrics } from '../../../../src/observability/metrics.js';
import { exampleRequest, loadInputRuntime } from '../../../golden/cases.js';
import { workflowBundle } from '../../../support/workflow-bundle.js';

export { workflowBundle };

/** The activities StartTrainJob calls, by their real names. */
export const START_ACTIVITIES = [
  'prepareStart',
  'readRuntime',
  'createRuntimeCopy',
  'createTrainJob',
  'setOwner',
  'readBack',
  'waitForWorkload',
  'stopTrainJob',
] as const;
export type StartActivity = (typeof START_ACTIVITIES)[number];
type Stubs = Pick<Activities, StartActivity>;
/** The stubs, and the folds of Start's calls made of them as the worker makes them of the real calls. */
type StubbedActivities = Stubs & ReturnType<typeof foldedStartActivities>;

export const COPY_UID = 'copy-0000-uid';
export const TRAINJOB_UID = 'trainjob-0000-uid';

/** The request every test starts: docs/contract.md's example on the sample runtime dispatch-kind. */
export const REQUEST = exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' });

/** The configuration's defaults (CallBound 30 s), in namespace ml-jobs. */
export const configOf = (input: Partial<ConfigInput> = {}): Config =>
  ConfigSchema.parse({ namespace: 'ml-jobs', ...input });
export const KUEUE: Partial<ConfigInput> = {
  mode: 'kueue',
  kueue: { queue: 'user-queue', admissionCheck: 'dispatch' },
};

/** A preflight that proved every gate, so that step 1 lets the Start through. */
export const PROVEN: BackendGates = {
  reach: true,
  write: true,
  start: true,
  reasons: [],
  checkedAt: '2026-01-01T00:00:00.000Z',
};

/** What the real kube-call throws when the API server does not answer: retried until CallBound. */
export const unanswered = (what: string) =>
  ApplicationFailure.retryable(`${what}: no answer from the Kubernetes API (ETIMEDOUT: stubbed)`, UNANSWERED);

/** A definite refusal, as an activity reports one: non-retryable, typed, with its step. */
export const refused = (type: ErrorType, reason: string, step: number) =>
  toApplicationFailure(new DispatchError(type, [reason], step));

/** How a stub answers one call: with a value, or by throwing what the behaviour returns. */
export type Behaviour = 'answer' | 'unanswered' | ((input: never) => unknown);

export interface StartStubs {
  activities: StubbedActivities;
  /** Every call, in order, with its input (a retried call appears once per attempt). */
  calls: { name: StartActivity; input: unknown }[];
  /** The activities called, each once, in the order of their first call. */
  called(): StartActivity[];
  /** The inputs of every call of one activity, in order. */
  inputsOf<K extends StartActivity>(name: K): Parameters<Stubs[K]>[0][];
  /** The TrainJob the workflow asked step 6 to create. */
  written(): TrainJob | undefined;
}

/**
 * Stubs for one Start. Each answers as a healthy API server would unless `behave` says otherwise:
 * `'unanswered'` throws KubeUnanswered on every attempt, a function is called with the input and
 * what it returns is thrown (an Error) or answered.
 */
export function startStubs(
  config: Config,
  behave: Partial<Record<StartActivity, Behaviour>> = {},
): StartStubs {
  const calls: StartStubs['calls'] = [];
  let written: TrainJob | undefined;
  const runtime: TrainerRuntime = loadInputRuntime('dispatch-kind');

  function stub<K extends StartActivity>(
    name: K,
    answer: (input: Parameters<Stubs[K]>[0]) => Awaited<ReturnType<Stubs[K]>>,
  ): Stubs[K] {
    const fn = async (input: Parameters<Stubs[K]>[0]) => {
      calls.push({ name, input: structuredClone(input) });
      const behaviour = behave[name] ?? 'answer';
      if (behaviour === 'unanswered') throw unanswered(`${name} (stubbed)`);
      if (behaviour !== 'answer') {
        const outcome = await behaviour(input as never);
        if (outcome instanceof Error) throw outcome;
        return outcome;
      }
      return answer(input);
    };
    return fn as unknown as Stubs[K];
  }

  const activities: Stubs = {
    prepareStart: stub('prepareStart', (request) => ({
      settings: { config, gates: PROVEN },
      valid: validate(request),
    })),
    readRuntime: stub('readRuntime', () => structuredClone(runtime)),
    createRuntimeCopy: stub('createRuntimeCopy', ({ copy }) => ({
      name: copy.metadata?.name ?? '',
      uid: COPY_UID,
      reused: false,
    })),
    createTrainJob: stub('createTrainJob', ({ trainJob }) => {
      written = structuredClone(trainJob);
      return { name: trainJob.metadata.name ?? '', uid: TRAINJOB_UID, adopted: false };
    }),
    setOwner: stub('setOwner', () => undefined),
    // What the API server holds: what was written, with its UID.
    readBack: stub('readBack', () => serverCopy(written!)),
    waitForWorkload: stub('waitForWorkload', ({ ref }) => ({
      workload: `trainjob-${ref.name}-0000`,
      checks: 1,
    })),
    stopTrainJob: stub('stopTrainJob', ({ name }) => ({ deleted: [`TrainJob ${name}`] })),
  };

  return {
    activities: { ...activities, ...foldedStartActivities(activities) },
    calls,
    called: () => [...new Set(calls.map((call) => call.name))],
    inputsOf: <K extends StartActivity>(name: K) =>
      calls.filter((call) => call.name === name).map((call) => call.input as Parameters<Stubs[K]>[0]),
    written: () => written,
  };
}

/** The TrainJob as the API server would answer a read: what was written, plus its UID. */
export function serverCopy(trainJob: TrainJob, edit: (read: TrainJob) => void = () => {}): TrainJob {
  const read = structuredClone(trainJob);
  read.metadata.uid = TRAINJOB_UID;
  edit(read);
  return read;
}

/** Cancels the workflow that runs the calling activity, and waits until the server has the request. */
export async function cancelOwnWorkflow(env: TestWorkflowEnvironment): Promise<void> {
  const workflowId = Context.current().info.workflowExecution?.workflowId;
  if (!workflowId) throw new Error('cancelOwnWorkflow: not called from a workflow activity');
  await env.client.workflow.getHandle(workflowId).cancel();
}


/** A worker on its own task queue with the stubs and the worker's own interceptors and sinks. */
export async function stubbedWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  stubs: StartStubs,
): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: stubs.activities,
    ...metricsWorkerOptions(createDispatchMetrics(), false),
  });
}
