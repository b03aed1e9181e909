// The compensation of Start (docs/start.md, steps 5-9), fast: the real StartTrainJob workflow on
// the time-skipping test server, its activities stubbed under their real names. A failure at steps
// 7-9, or a cancellation once step 5 has begun, stops what the attempt created; a failure before
// step 7 stops nothing. Each test says which failure the caller gets (type, step, reasons, ref)
// and exactly which activities the workflow called, and with what.
//
// Time skipping makes the server's timeouts and the retry backoffs pass at once: the step 6
// create and the step 9 Workload wait (activity tasks) stay unanswered until their CallBound in
// skipped time. The other calls are local activities, whose schedule-to-close the worker itself
// times against the wall clock (sdk-core's local activity manager), so a test that waits out one
// of them runs with a CallBound of 1 s instead of 30 s.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { UndoStartInput } from '../../../src/activities/undo-start-activities.js';
import { attemptToken, trainJobName } from '../../../src/core/start/names.js';
import type { FailureDetails } from '../../../src/model/errors.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import type { BackendGates, StartResult } from '../../../src/model/results.js';
import { validate } from '../../../src/core/start/validate.js';
import { DispatchStep } from '../../../src/contract/search-attributes.js';
import { VALIDATE_STEP } from '../../../src/core/start/validate.js';
import {
  cancelOwnWorkflow,
  configOf,
  COPY_UID,
  KUEUE,
  PROVEN,
  REQUEST,
  refused,
  serverCopy,
  startStubs,
  stubbedWorker,
  TRAINJOB_UID,
  unanswered,
  type StartStubs,
} from './support/start-stubs.js';
import { timeSkippingSuite } from './support/time-skipping-suite.js';

const ts = timeSkippingSuite();

const NAMESPACE = 'ml-jobs';
const NAME = trainJobName(REQUEST.job, REQUEST.submission);
const TOKEN = attemptToken(NAMESPACE, NAME, REQUEST.attempt);
const REF = { namespace: NAMESPACE, name: NAME, uid: TRAINJOB_UID };
/** A CallBound the wall clock can wait out: local activities are timed by the worker, not the server. */
const SHORT_CALL = { timeouts: { call: '1s', workload: '60s' } };

/**
 * The server stops retrying an activity once the next retry would start past its schedule-to-close
 * bound, so an unanswered call fails up to one backoff (at most 5 s) before the bound itself.
 */
const LAST_BACKOFF_MS = 5_000;

interface Outcome {
  result?: StartResult;
  error?: unknown;
  /** Workflow time from start to close, in ms: skipped time counts. */
  workflowMs: number;
  wallMs: number;
  /** The DispatchStep search attribute once the Start ended. */
  dispatchStep?: string;
}

let started = 0;
/** Runs one Start on a worker of its own with these stubs, to its end. */
async function start(stubs: StartStubs): Promise<Outcome> {
  const id = ++started;
  const taskQueue = `compensation-${id}`;
  const worker = await stubbedWorker(ts.env, taskQueue, stubs);
  const wallStart = performance.now();
  const handle = await ts.env.client.workflow.start('StartTrainJob', {
    args: [REQUEST],
    taskQueue,
    workflowId: `start/${NAMESPACE}/${NAME}/${id}`,
  });
  const ended = await worker.runUntil(
    handle.result().then(
      (result: StartResult) => ({ result }),
      (error: unknown) => ({ error }),
    ),
  );
  const wallMs = performance.now() - wallStart;
  const { startTime, closeTime, typedSearchAttributes } = await handle.describe();
  const dispatchStep = typedSearchAttributes.get(DispatchStep);
  return { ...ended, wallMs, workflowMs: (closeTime?.getTime() ?? NaN) - startTime.getTime(), dispatchStep };
}

/**
 * Expects the failure a caller gets: its type, and details `{reasons, step, ref?}` with this step
 * and ref (none when `ref` is undefined). Returns the reasons.
 */
function expectFailure(outcome: Outcome, type: string, step: number, ref: TrainJobRef | undefined): string[] {
  expect(outcome.error, `the Start succeeded: ${JSON.stringify(outcome.result)}`).toBeInstanceOf(
    WorkflowFailedError,
  );
  const cause = (outcome.error as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  const failure = cause as ApplicationFailure;
  const details = failure.details?.[0] as FailureDetails;
  expect({ type: failure.type, ...details }).toEqual({
    type,
    reasons: expect.any(Array),
    step,
    ...(ref ? { ref } : {}),
  });
  return details.reasons;
}

/** Expects a cancelled Start whose compensation ran once; returns what the stop was given. */
function expectCancelledAndStopped(outcome: Outcome, stubs: StartStubs): UndoStartInput {
  expect(outcome.error).toBeInstanceOf(WorkflowFailedError);
  expect((outcome.error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  const stops = stubs.inputsOf('stopTrainJob');
  expect(stops).toHaveLength(1);
  // Which step the stop would name in a failure of its own is the workflow's business: not compared.
  return { ...stops[0]!, step: 0 };
}

/** What Start wrote and the mode, which the stop checks a TrainJob against before it deletes it. */
const asWritten = (mode: 'plain' | 'kueue' = 'plain') => ({
  trainJob: expect.objectContaining({ kind: 'TrainJob', metadata: expect.objectContaining({ name: NAME }) }),
  mode,
  kueue: (mode === 'kueue' ? configOf(KUEUE) : configOf()).kueue,
});

/** What the compensation is asked to stop once the TrainJob exists (both UIDs known). */
const stopOf = (step: number, ownerSet: boolean, mode: 'plain' | 'kueue' = 'plain'): UndoStartInput => ({
  namespace: NAMESPACE,
  name: NAME,
  token: TOKEN,
  ownerSet,
  step,
  copyUid: COPY_UID,
  trainJobUid: TRAINJOB_UID,
  ref: REF,
  ...asWritten(mode),
});

const UP_TO_STEP_6 = ['prepareStart', 'readRuntime', 'createRuntimeCopy', 'createTrainJob'];

describe('StartTrainJob with stubbed activities on the time-skipping server', () => {
  it('runs steps 2-8 and stops nothing when every call is answered (the stubs are sound)', async () => {
    const stubs = startStubs(configOf());
    const outcome = await start(stubs);
    expect(outcome.error).toBeUndefined();
    expect(outcome.result).toEqual({
      ref: `${NAMESPACE}/${NAME}`,
      uid: TRAINJOB_UID,
      namespace: NAMESPACE,
      name: NAME,
      runtimeCopy: NAME,
      mode: 'plain',
    });
    expect(stubs.called()).toEqual([...UP_TO_STEP_6, 'setOwner', 'readBack']);
    expect(stubs.written()?.metadata.annotations).toMatchObject({
      'dispatch.phpboyscout.uk/attempt-token': TOKEN,
    });
  });

  it('step 7 unanswered until CallBound: ErrRejected at 7, the TrainJob and the unowned copy stopped by UID', async () => {
    const stubs = startStubs(configOf(SHORT_CALL), { setOwner: 'unanswered' });
    const outcome = await start(stubs);
    const reasons = expectFailure(outcome, 'ErrRejected', 7, REF);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain('no answer');
    expect(stubs.called()).toEqual([...UP_TO_STEP_6, 'setOwner', 'stopTrainJob']);
    expect(stubs.inputsOf('setOwner').length).toBeGreaterThan(1); // retried until CallBound
    expect(stubs.inputsOf('stopTrainJob')).toEqual([stopOf(7, false)]);
  });

  it('step 8 read-back unanswered until CallBound: ErrRejected at 8, the TrainJob stopped (the owned copy goes with it)', async () => {
    const stubs = startStubs(configOf(SHORT_CALL), { readBack: 'unanswered' });
    const outcome = await start(stubs);
    const reasons = expectFailure(outcome, 'ErrRejected', 8, REF);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain('no answer');
    expect(stubs.called()).toEqual([...UP_TO_STEP_6, 'setOwner', 'readBack', 'stopTrainJob']);
    expect(stubs.inputsOf('stopTrainJob')).toEqual([stopOf(8, true)]);
  });

  it('read-back differs: ErrRejected at 8 naming the difference, the TrainJob stopped', async () => {
    const stubs = startStubs(configOf(), {
      readBack: () =>
        serverCopy(
          stubs.written()!,
          (read) => (read.spec.trainer = { ...read.spec.trainer, image: 'ghcr.io/example/other:9' }),
        ),
    });
    const outcome = await start(stubs);
    const reasons = expectFailure(outcome, 'ErrRejected', 8, REF);
    expect(reasons).toEqual([
      'spec.trainer.image: wrote "ghcr.io/example/train:1.4", read "ghcr.io/example/other:9"',
    ]);
    expect(stubs.called()).toEqual([...UP_TO_STEP_6, 'setOwner', 'readBack', 'stopTrainJob']);
    expect(stubs.inputsOf('stopTrainJob')).toEqual([stopOf(8, true)]);
  });

  it('Kueue mode, step 9 unanswered past timeouts.workload: ErrRejected at 9, the TrainJob stopped; 2 minutes pass in skipped time', async () => {
    const stubs = startStubs(configOf(KUEUE), { waitForWorkload: 'unanswered' });
    const outcome = await start(stubs);
    const reasons = expectFailure(outcome, 'ErrRejected', 9, REF);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain('no answer');
    expect(stubs.called()).toEqual([
      ...UP_TO_STEP_6,
      'setOwner',
      'readBack',
      'waitForWorkload',
      'stopTrainJob',
    ]);
    expect(stubs.inputsOf('stopTrainJob')).toEqual([stopOf(9, true, 'kueue')]);
    // The wait's bound is timeouts.workload + 2 × CallBound (60 s + 2 × 30 s), all of it skipped.
    expect(outcome.workflowMs).toBeGreaterThan(120_000 - LAST_BACKOFF_MS);
    expect(outcome.wallMs).toBeLessThan(10_000);
  });

  it('the stop refused too: ErrOutcomeUnknown at the step, naming both reasons, the ref kept', async () => {
    const stopRefusal = `deleting TrainJob ${NAMESPACE}/${NAME}: HTTP 403 Forbidden: trainjobs.trainer.kubeflow.org is forbidden`;
    const stubs = startStubs(configOf(), {
      readBack: () => serverCopy(stubs.written()!, (read) => (read.spec.suspend = false)),
      stopTrainJob: (input: UndoStartInput) => refused('ErrOutcomeUnknown', stopRefusal, input.step),
    });
    const outcome = await start(stubs);
    const reasons = expectFailure(outcome, 'ErrOutcomeUnknown', 8, REF);
    expect(reasons).toEqual(['spec.suspend: wrote true, read false', `the stop failed too: ${stopRefusal}`]);
    expect(stubs.inputsOf('stopTrainJob')).toEqual([stopOf(8, true)]);
  });

  it('the stop unanswered until CallBound too: ErrOutcomeUnknown naming both reasons, the ref kept', async () => {
    const stubs = startStubs(configOf(SHORT_CALL), { setOwner: 'unanswered', stopTrainJob: 'unanswered' });
    const outcome = await start(stubs);
    const reasons = expectFailure(outcome, 'ErrOutcomeUnknown', 7, REF);
    expect(reasons).toHaveLength(2);
    expect(reasons[0]).toContain('no answer');
    expect(reasons[1]).toMatch(/^the stop failed too: .*no answer/);
    expect(stubs.called()).toEqual([...UP_TO_STEP_6, 'setOwner', 'stopTrainJob']);
    // Retried until its own CallBound, each time with the same input.
    for (const input of stubs.inputsOf('stopTrainJob')) expect(input).toEqual(stopOf(7, false));
  });

  it('step 6 unanswered past CallBound: ErrOutcomeUnknown at 6 naming the TrainJob without a UID, nothing stopped (the copy is kept)', async () => {
    const stubs = startStubs(configOf(), { createTrainJob: 'unanswered' });
    const outcome = await start(stubs);
    const reasons = expectFailure(outcome, 'ErrOutcomeUnknown', 6, {
      namespace: NAMESPACE,
      name: NAME,
      uid: '',
    });
    expect(reasons).toHaveLength(1);
    expect(stubs.called()).toEqual(UP_TO_STEP_6);
    expect(stubs.inputsOf('createTrainJob').length).toBeGreaterThan(1); // retried until CallBound
    // CallBound (30 s) passed in skipped time.
    expect(outcome.workflowMs).toBeGreaterThan(30_000 - LAST_BACKOFF_MS);
    expect(outcome.wallMs).toBeLessThan(10_000);
  });

  it('the request refused by validation: the failure carries step 4, and DispatchStep names step 4 too', async () => {
    const stubs = startStubs(configOf(), { prepareStart: () => refused('ErrInvalid', 'Submission: 0 is outside 1 to 999,999', VALIDATE_STEP) });
    const outcome = await start(stubs);
    expectFailure(outcome, 'ErrInvalid', VALIDATE_STEP, undefined);
    expect(outcome.dispatchStep).toBe(`ErrInvalid at step ${VALIDATE_STEP} validate request`);
    expect(stubs.called()).toEqual(['prepareStart']);
  });

  it('step 5 refused definitely: that refusal at 5, no ref, nothing stopped', async () => {
    const reason = `creating TrainingRuntime ${NAMESPACE}/${NAME}: HTTP 422 Invalid: spec.template: Invalid value`;
    const stubs = startStubs(configOf(), { createRuntimeCopy: () => refused('ErrRejected', reason, 5) });
    const outcome = await start(stubs);
    expect(expectFailure(outcome, 'ErrRejected', 5, undefined)).toEqual([reason]);
    expect(stubs.called()).toEqual(['prepareStart', 'readRuntime', 'createRuntimeCopy']);
    expect(stubs.inputsOf('createRuntimeCopy')).toHaveLength(1); // a definite refusal is not retried
  });

  it('cancelled during step 8: the Start is cancelled, and the stop still runs (non-cancellable)', async () => {
    const stubs = startStubs(configOf(), {
      readBack: async () => {
        await cancelOwnWorkflow(ts.env);
        return unanswered('readBack (stubbed)');
      },
    });
    const stop = expectCancelledAndStopped(await start(stubs), stubs);
    expect(stubs.called()).toEqual([...UP_TO_STEP_6, 'setOwner', 'readBack', 'stopTrainJob']);
    expect(stop).toEqual({ ...stopOf(8, true), step: 0 });
  });

  it('cancelled during step 5 (the copy create unanswered): the stop looks the copy and TrainJob up by name and token', async () => {
    const stubs = startStubs(configOf(), {
      createRuntimeCopy: async () => {
        await cancelOwnWorkflow(ts.env);
        return unanswered('createRuntimeCopy (stubbed)');
      },
    });
    const stop = expectCancelledAndStopped(await start(stubs), stubs);
    expect(stubs.called()).toEqual(['prepareStart', 'readRuntime', 'createRuntimeCopy', 'stopTrainJob']);
    // No UID and no ref: the stop deletes only what carries this attempt's token.
    expect(stop).toEqual({
      namespace: NAMESPACE,
      name: NAME,
      token: TOKEN,
      ownerSet: false,
      step: 0,
      ...asWritten(),
    });
  });
});

describe('StartTrainJob: the compensation leaves what the caller took over (docs/contract.md §7)', () => {
  const EARLIER_UID = 'trainjob-earlier-uid';
  const EARLIER_REF = { namespace: NAMESPACE, name: NAME, uid: EARLIER_UID };
  /** Step 5 adopted the copy of an earlier run of this attempt, and so its TrainJob. */
  const adoptedEarlier = ({ copy }: { copy: { metadata?: { name?: string } } }) => ({
    name: copy.metadata?.name ?? '',
    uid: COPY_UID,
    reused: true,
    earlierTrainJobUid: EARLIER_UID,
  });
  const leftReason = `TrainJob ${NAMESPACE}/${NAME} was left as it is: an earlier run of this attempt started it`;
  /** The stop as the real activity answers for a TrainJob it leaves. */
  const leaves = (input: UndoStartInput) => ({ deleted: [], left: [{ ref: { namespace: input.namespace, name: input.name, uid: input.trainJobUid ?? EARLIER_UID }, reason: leftReason }] });

  it('a TrainJob adopted from an earlier run: a failure at step 8 asks the stop to leave it, and the failure carries its ref and why', async () => {
    const stubs = startStubs(configOf(SHORT_CALL), {
      createRuntimeCopy: adoptedEarlier as never,
      createTrainJob: (({ trainJob }: { trainJob: { metadata: { name?: string } } }) => ({ name: trainJob.metadata.name, uid: EARLIER_UID, adopted: true })) as never,
      readBack: 'unanswered',
      stopTrainJob: leaves as never,
    });
    const outcome = await start(stubs);
    const reasons = expectFailure(outcome, 'ErrRejected', 8, EARLIER_REF);
    expect(reasons.at(-1)).toBe(leftReason);
    expect(stubs.inputsOf('stopTrainJob')).toEqual([
      expect.objectContaining({ adoptedEarlier: true, trainJobUid: EARLIER_UID, ref: EARLIER_REF, step: 8 }),
    ]);
  });

  it('cancelled during step 6 after adopting an earlier run: the stop is told the TrainJob is adopted, by its UID', async () => {
    const stubs = startStubs(configOf(), {
      createRuntimeCopy: adoptedEarlier as never,
      createTrainJob: async () => {
        await cancelOwnWorkflow(ts.env);
        return unanswered('createTrainJob (stubbed)');
      },
      stopTrainJob: leaves as never,
    });
    const stop = expectCancelledAndStopped(await start(stubs), stubs);
    expect(stop).toMatchObject({ adoptedEarlier: true, trainJobUid: EARLIER_UID, ref: EARLIER_REF, copyUid: COPY_UID });
  });

  it('a TrainJob of this run that the stop left (opened meanwhile): the failure at step 8 says so and names it', async () => {
    const opened = `TrainJob ${NAMESPACE}/${NAME} was left as it is: the caller has opened it`;
    const stubs = startStubs(configOf(SHORT_CALL), {
      readBack: 'unanswered',
      stopTrainJob: ((input: UndoStartInput) => ({ deleted: [], left: [{ ref: input.ref, reason: opened }] })) as never,
    });
    const reasons = expectFailure(await start(stubs), 'ErrRejected', 8, REF);
    expect(reasons.at(-1)).toBe(opened);
  });
});

describe('StartTrainJob: a refusal at step 1 removes the copy a lost first workflow task may have made', () => {
  /** prepareStart answering these gates, as a worker whose preflight has not proven them does. */
  const gated = (gates: Partial<BackendGates>) =>
    (async (request: unknown) => ({ settings: { config: configOf(), gates: { ...PROVEN, ...gates } }, valid: validate(request) })) as never;
  /** What the stop is given: by name and token, no UID, nothing created by this run (step 1). */
  const byToken: UndoStartInput = { namespace: NAMESPACE, name: NAME, token: TOKEN, ownerSet: false, step: 1, mode: 'plain', kueue: configOf().kueue };

  it.each([
    { what: 'the start gate unproven: ErrUnsupported', gates: { start: false, reasons: ['start: no'] }, type: 'ErrUnsupported' },
    { what: 'the start gate unknown: ErrUnreachable', gates: { start: false, startUnknown: true, reasons: ['start: no answer'] }, type: 'ErrUnreachable' },
  ])('$what, after the stop of this attempt\'s copy by name and token', async ({ gates, type }) => {
    const stubs = startStubs(configOf(), { prepareStart: gated(gates) });
    const reasons = expectFailure(await start(stubs), type, 1, undefined);
    expect(reasons).toEqual(gates.reasons);
    expect(stubs.called()).toEqual(['prepareStart', 'stopTrainJob']);
    expect(stubs.inputsOf('stopTrainJob')).toEqual([byToken]);
  });

  it('reach or write unproven: nothing to try, the refusal alone', async () => {
    for (const gates of [{ reach: false, write: false, start: false }, { write: false, start: false }]) {
      const stubs = startStubs(configOf(), { prepareStart: gated(gates) });
      expectFailure(await start(stubs), gates.reach === false ? 'ErrUnreachable' : 'ErrReadOnly', 1, undefined);
      expect(stubs.called()).toEqual(['prepareStart']);
    }
  });

  it('the stop refused: the refusal keeps its type, and says the copy may remain', async () => {
    const stubs = startStubs(configOf(), {
      prepareStart: gated({ start: false, reasons: ['start: no'] }),
      stopTrainJob: (() => refused('ErrOutcomeUnknown', 'reading TrainingRuntime x: HTTP 403 Forbidden', 1)) as never,
    });
    const reasons = expectFailure(await start(stubs), 'ErrUnsupported', 1, undefined);
    expect(reasons).toEqual(['start: no', 'a runtime copy this attempt may have made could not be removed: reading TrainingRuntime x: HTTP 403 Forbidden']);
  });
});
