// The folds of Start's back-to-back calls (src/activities/folded-start-activities.ts): each step's
// call in turn; a call left unanswered stops the fold there, answered with what came before; a
// definite refusal is thrown as the step's own activity throws it; a plan that refuses makes no copy.
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { foldedStartActivities, type StepCalls } from '../../../src/activities/folded-start-activities.js';
import { KubeUnanswered } from '../../../src/kube/call.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { TrainerRuntime, TrainJob } from '../../../src/model/kube.js';
import { config, exampleRequest, loadInputRuntime, validOf } from '../../golden/cases.js';

const valid = validOf(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' }));
const RUNTIME = loadInputRuntime('dispatch-kind');
const READ: TrainJob = { metadata: { name: 'read', uid: 'job-uid' }, spec: {} } as TrainJob;
const COPY = { name: 'copy', uid: 'copy-uid', reused: false };
const OWNER_INPUT = { namespace: 'ml-jobs', copy: { name: 'copy', uid: 'copy-uid' }, trainJob: { name: 'job', uid: 'job-uid' } };

type Behaviour = 'answer' | (() => Error);

/** Step calls that answer, or throw what their behaviour makes; each call is recorded by name. */
function stepCalls(behave: Partial<Record<keyof StepCalls, Behaviour>> = {}, runtime: TrainerRuntime = RUNTIME) {
  const called: string[] = [];
  const run = async <T>(name: keyof StepCalls, answer: T): Promise<T> => {
    called.push(name);
    const behaviour = behave[name] ?? 'answer';
    if (behaviour !== 'answer') throw behaviour();
    return answer;
  };
  const calls: StepCalls = {
    readRuntime: () => run('readRuntime', structuredClone(runtime)),
    createRuntimeCopy: () => run('createRuntimeCopy', COPY),
    setOwner: () => run('setOwner', undefined),
    readBack: () => run('readBack', READ),
  };
  return { calls, called };
}

const copyInput = { namespace: 'ml-jobs', valid, config: config(), probe: false };
const unansweredCall = () => new KubeUnanswered('GET runtime: ETIMEDOUT');

describe('steps 2 and 5 folded', () => {
  it('answers the runtime and the copy, each call made once, in order', async () => {
    const { calls, called } = stepCalls();
    const fold = await foldedStartActivities(calls).readRuntimeThenCopy(copyInput);
    expect(fold).toEqual({ runtime: RUNTIME, copy: COPY });
    expect(called).toEqual(['readRuntime', 'createRuntimeCopy']);
  });

  it('stops at step 2 when the read is unanswered, and makes no copy', async () => {
    const { calls, called } = stepCalls({ readRuntime: unansweredCall });
    const fold = await foldedStartActivities(calls).readRuntimeThenCopy(copyInput);
    expect(fold).toEqual({ stopped: { step: 2, reason: 'GET runtime: ETIMEDOUT' } });
    expect(called).toEqual(['readRuntime']);
  });

  it('stops at step 5 when the create is unanswered (a retryable failure, as the stubs throw it), with the runtime read', async () => {
    const { calls } = stepCalls({ createRuntimeCopy: () => ApplicationFailure.retryable('POST: 500', 'KubeUnanswered') });
    const fold = await foldedStartActivities(calls).readRuntimeThenCopy(copyInput);
    expect(fold).toEqual({ runtime: RUNTIME, stopped: { step: 5, reason: 'POST: 500' } });
  });

  it('makes no copy when the plan refuses (steps 3 and 4): the runtime alone, for the workflow to refuse from', async () => {
    const broken = structuredClone(RUNTIME);
    (broken.spec as { template: { spec: { replicatedJobs: unknown[] } } }).template.spec.replicatedJobs = [];
    const { calls, called } = stepCalls({}, broken);
    const fold = await foldedStartActivities(calls).readRuntimeThenCopy(copyInput);
    expect(fold).toEqual({ runtime: broken });
    expect(called).toEqual(['readRuntime']);
  });

  it("throws a definite refusal as the step's activity throws it, and a non-retryable failure too", async () => {
    const refusal = new DispatchError('ErrRejected', ['copy in the way'], 5);
    const refused = stepCalls({ createRuntimeCopy: () => refusal });
    await expect(foldedStartActivities(refused.calls).readRuntimeThenCopy(copyInput)).rejects.toBe(refusal);
    const failure = ApplicationFailure.nonRetryable('not found', 'ErrUnsupported');
    const notFound = stepCalls({ readRuntime: () => failure });
    await expect(foldedStartActivities(notFound.calls).readRuntimeThenCopy(copyInput)).rejects.toBe(failure);
    expect(notFound.called).toEqual(['readRuntime']);
  });
});

describe('steps 7 and 8 folded', () => {
  it('answers the read-back once the owner is set', async () => {
    const { calls, called } = stepCalls();
    expect(await foldedStartActivities(calls).setOwnerThenReadBack(OWNER_INPUT)).toEqual({ read: READ });
    expect(called).toEqual(['setOwner', 'readBack']);
  });

  it('stops at step 7 without reading, or at step 8 with the owner set', async () => {
    const seven = stepCalls({ setOwner: unansweredCall });
    expect(await foldedStartActivities(seven.calls).setOwnerThenReadBack(OWNER_INPUT)).toEqual({ stopped: { step: 7, reason: 'GET runtime: ETIMEDOUT' } });
    expect(seven.called).toEqual(['setOwner']);
    const eight = stepCalls({ readBack: unansweredCall });
    expect(await foldedStartActivities(eight.calls).setOwnerThenReadBack(OWNER_INPUT)).toEqual({ stopped: { step: 8, reason: 'GET runtime: ETIMEDOUT' } });
    expect(eight.called).toEqual(['setOwner', 'readBack']);
  });

  it('times each step by itself when asked', async () => {
    const timed: string[] = [];
    const { calls } = stepCalls();
    await foldedStartActivities(calls, (activity) => {
      timed.push(`start ${activity}`);
      return () => timed.push(`stop ${activity}`);
    }).setOwnerThenReadBack(OWNER_INPUT);
    expect(timed).toEqual(['start setOwner', 'stop setOwner', 'start readBack', 'stop readBack']);
  });
});
