// The preflight probe's start gate (docs/start.md, "The preflight probe"), fast: the real
// ProbeBackend workflow on the time-skipping test server, its activities stubbed under their real
// names (support/start-stubs.ts). A probe Start that ends with something perhaps made (the copy
// create unanswered at step 5, the TrainJob create unanswered at step 6) compensates nothing in
// runStart, and no probe is ever retried: ProbeBackend stops it by name and attempt token
// (patch probe-stops-what-it-may-have-made), and the start gate stays unproven.
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { Activities } from '../../../src/activities/index.js';
import type { UndoStartInput } from '../../../src/activities/undo-start-activities.js';
import { attemptToken } from '../../../src/core/start/names.js';
import { PROBE_JOB_PREFIX } from '../../../src/core/start/probe.js';
import type { Config } from '../../../src/model/config.js';
import { Probe } from '../../../src/model/constants.js';
import type { BackendGates } from '../../../src/model/results.js';
import { DispatchError } from '../../../src/model/errors.js';
import { toApplicationFailure } from '../../../src/model/error-failures.js';
import {
  cancelOwnWorkflow,
  configOf,
  KUEUE,
  refused,
  startStubs,
  stubbedWorker,
  TRAINJOB_UID,
  unanswered,
  type StartActivity,
  type Behaviour,
  type StartStubs,
} from './support/start-stubs.js';
import { timeSkippingSuite } from './support/time-skipping-suite.js';

const ts = timeSkippingSuite();

const NAMESPACE = 'ml-jobs';
/** A probe's TrainJob (and copy) name: a JobID of its own run, submission 1 (src/core/start/probe.ts). */
const PROBE_NAME = new RegExp(`^dj-${PROBE_JOB_PREFIX.toLowerCase()}[0-9a-z]{9}-s1$`);
/**
 * A CallBound the wall clock can wait out: local activities are timed by the worker, not the server,
 * and a step 6 unanswered must not hang on the test server skipping time (in CI of 1b0631e it once did
 * not, and the default 30 s CallBound ran out the test's own 30 s).
 */
const SHORT_CALL = { timeouts: { call: '1s', workload: '60s' } };

interface Probed {
  gates?: BackendGates;
  error?: unknown;
  stubs: StartStubs;
  /** The probe's TrainJob name, as step 5 was asked to create its copy. */
  name: string;
}

let runs = 0;
/** Runs one ProbeBackend on a worker of its own, reach and write proven, the Start's calls stubbed. */
async function probe(
  config: Config,
  behave: Partial<Record<StartActivity, Behaviour>> = {},
  gatesBehave: { checkWrite?: 'unanswered' | Activities['checkWrite'] } = {},
): Promise<Probed> {
  const stubs = startStubs(config, behave);
  const { checkWrite = async () => ({ reasons: [] }) } = gatesBehave;
  const gateStubs: Pick<Activities, 'getSettings' | 'checkReach' | 'checkWrite'> = {
    getSettings: async () => ({ config, gates: { reach: false, write: false, start: false, reasons: [], checkedAt: '' } }),
    checkReach: async () => ({ version: 'v1.35.4' }),
    checkWrite:
      checkWrite === 'unanswered'
        ? async () => {
            throw unanswered('checkWrite (stubbed)');
          }
        : checkWrite,
  };
  const taskQueue = `probe-backend-${++runs}`;
  const worker = await stubbedWorker(ts.env, taskQueue, { ...stubs, activities: { ...stubs.activities, ...gateStubs } });
  const handle = await ts.env.client.workflow.start('ProbeBackend', { args: [], taskQueue, workflowId: `probe/${NAMESPACE}/${runs}` });
  const ended = await worker.runUntil(
    handle.result().then(
      (gates: BackendGates) => ({ gates }),
      (error: unknown) => ({ error }),
    ),
  );
  const name = stubs.inputsOf('createRuntimeCopy')[0]?.copy.metadata?.name ?? '';
  return { ...ended, stubs, name };
}

/** The configuration's mode and Kueue settings, which the probe's stop is given as Start's undo is (MultiKueue's worker copies). */
const undoConfig = (config = configOf()) => ({ mode: config.mode, kueue: config.kueue });

/** What the probe's stop is given after a Start that may have made something: no UID, looked up by token. */
const stopByName = (name: string, step: number): UndoStartInput => ({
  namespace: NAMESPACE,
  name,
  token: attemptToken(NAMESPACE, name, Probe.attempt),
  ownerSet: false,
  step,
  ...undoConfig(),
});

const UP_TO_STEP_5 = ['readRuntime', 'createRuntimeCopy'];

describe('ProbeBackend with stubbed activities on the time-skipping server', () => {
  it('proves every gate and stops the started probe by its UID (the stubs are sound)', async () => {
    const { gates, error, stubs, name } = await probe(configOf());
    expect(error).toBeUndefined();
    expect(gates).toEqual({ reach: true, write: true, start: true, reasons: [], checkedAt: expect.any(String) });
    expect(name).toMatch(PROBE_NAME);
    expect(stubs.inputsOf('stopTrainJob')).toEqual([
      { namespace: NAMESPACE, name, token: attemptToken(NAMESPACE, name, Probe.attempt), trainJobUid: TRAINJOB_UID, ownerSet: true, step: 0, ...undoConfig() },
    ]);
  });

  it('step 6 unanswered past CallBound (ErrOutcomeUnknown): stops the TrainJob and the copy by name and token, and leaves start unknown', async () => {
    const { gates, error, stubs, name } = await probe(configOf(SHORT_CALL), { createTrainJob: 'unanswered' });
    expect(error).toBeUndefined();
    expect(gates).toMatchObject({ reach: true, write: true, start: false, startUnknown: true });
    expect(gates!.reasons).toHaveLength(1);
    expect(gates!.reasons[0]).toMatch(new RegExp(`^start: waiting for TrainJob ${NAMESPACE}/${name}: .*no answer`));
    expect(stubs.called()).toEqual([...UP_TO_STEP_5, 'createTrainJob', 'stopTrainJob']);
    expect(stubs.inputsOf('stopTrainJob')).toEqual([stopByName(name, 6)]);
  });

  it('step 5 unanswered until CallBound (ErrUnreachable): stops the copy that may have landed, by name and token, and leaves start unknown', async () => {
    const { gates, error, stubs, name } = await probe(configOf(SHORT_CALL), { createRuntimeCopy: 'unanswered' });
    expect(error).toBeUndefined();
    expect(gates).toMatchObject({ reach: true, write: true, start: false, startUnknown: true });
    expect(gates!.reasons).toHaveLength(1);
    expect(gates!.reasons[0]).toMatch(new RegExp(`^start: waiting for runtime copy ${NAMESPACE}/${name}: .*no answer`));
    expect(stubs.called()).toEqual([...UP_TO_STEP_5, 'stopTrainJob']);
    expect(stubs.inputsOf('stopTrainJob')).toEqual([stopByName(name, 5)]);
  });

  it('the stop refused too: start unproven with both reasons, the first kept as it was', async () => {
    const stopRefusal = 'reading TrainingRuntime ml-jobs/x: HTTP 403 Forbidden';
    const { gates, stubs, name } = await probe(configOf(SHORT_CALL), {
      createTrainJob: 'unanswered',
      stopTrainJob: (input: UndoStartInput) => refused('ErrOutcomeUnknown', stopRefusal, input.step),
    });
    expect(gates).toMatchObject({ reach: true, write: true, start: false });
    expect(gates!.reasons).toEqual([expect.stringMatching(/^start: waiting for TrainJob .*no answer/), `start: the stop failed too: ${stopRefusal}`]);
    expect(stubs.inputsOf('stopTrainJob')).toEqual([stopByName(name, 6)]);
  });

  it('a definite refusal at step 6 (its activity already cleaned up): nothing stopped, start unproven', async () => {
    const reason = 'creating TrainJob: HTTP 422 Invalid: spec.trainer: Invalid value';
    const { gates, stubs } = await probe(configOf(), { createTrainJob: () => refused('ErrRejected', reason, 6) });
    expect(gates).toMatchObject({ reach: true, write: true, start: false, reasons: [`start: ${reason}`] });
    expect(gates!.startUnknown).toBeUndefined();
    expect(stubs.called()).toEqual([...UP_TO_STEP_5, 'createTrainJob']);
  });

  it('step 8 finds the TrainJob gone (an earlier execution of a lost workflow task stopped it): start unknown, not unproven', async () => {
    const reason = 'reading back TrainJob ml-jobs/x: HTTP 404 NotFound: trainjobs.trainer.kubeflow.org "x" not found';
    // The read-back activity marks its 404 as not definite (test/unit/activities/create-or-adopt.test.ts).
    const { gates } = await probe(configOf(), {
      readBack: () => toApplicationFailure(new DispatchError('ErrRejected', [reason], 8, undefined, { definite: false })),
    });
    expect(gates).toMatchObject({ reach: true, write: true, start: false, startUnknown: true, reasons: [`start: ${reason}`] });
  });

  // docs/contract.md §8: a refusal counts only when a definite answer caused it.
  it('steps 7 and 8 unanswered past CallBound (ErrRejected for a Start): start unknown, not unproven', async () => {
    for (const step of ['setOwner', 'readBack'] as const) {
      const { gates, stubs } = await probe(configOf(SHORT_CALL), { [step]: 'unanswered' });
      expect(gates).toMatchObject({ reach: true, write: true, start: false, startUnknown: true });
      expect(gates!.reasons[0]).toMatch(/^start: waiting for .*no answer/);
      expect(stubs.called()).toContain(step);
    }
  });

  it('step 9 saw no Workload within timeouts.workload: start unknown; a Workload without the gate: start unproven', async () => {
    const noWorkload = 'the Workload of TrainJob ml-jobs/x was not right within 60s';
    const silent = await probe(configOf(KUEUE), {
      waitForWorkload: () => toApplicationFailure(new DispatchError('ErrRejected', [noWorkload], 9, undefined, { definite: false })),
    });
    expect(silent.gates).toMatchObject({ reach: true, write: true, start: false, startUnknown: true, reasons: [`start: ${noWorkload}`] });
    const wrong = await probe(configOf(KUEUE), { waitForWorkload: () => refused('ErrRejected', `${noWorkload}; it has no gate`, 9) });
    expect(wrong.gates).toMatchObject({ reach: true, write: true, start: false });
    expect(wrong.gates!.startUnknown).toBeUndefined();
  });

  it('an unanswered access review leaves the write gate unknown, not refused; a review that denies refuses it', async () => {
    const silent = await probe(configOf(SHORT_CALL), {}, { checkWrite: 'unanswered' });
    expect(silent.gates).toMatchObject({ reach: true, write: false, start: false, writeUnknown: true });
    const denied = await probe(configOf(), {}, { checkWrite: async () => ({ reasons: ['write: create trainjobs denied'] }) });
    expect(denied.gates).toMatchObject({ reach: true, write: false, start: false, reasons: ['write: create trainjobs denied'] });
    expect(denied.gates!.writeUnknown).toBeUndefined();
  });

  it("a worker cluster's review unanswered (checkWrite's ErrUnreachable without a definite answer): the write gate unknown, the reason naming the cluster", async () => {
    const silentCluster = 'worker cluster worker-1: review create trainingruntimes in namespace ml-jobs: no answer from the Kubernetes API (ECONNREFUSED)';
    const { gates } = await probe(configOf(), {}, {
      checkWrite: async () => {
        throw toApplicationFailure(new DispatchError('ErrUnreachable', [silentCluster], 1, undefined, { definite: false }));
      },
    });
    expect(gates).toMatchObject({ reach: true, write: false, start: false, writeUnknown: true, reasons: [`write: ${silentCluster}`] });
  });

  it('step 8 refused otherwise (a read-back that differs, or a 403): start unproven', async () => {
    for (const reason of ['spec.trainer.image: wrote a, read b', 'reading back TrainJob ml-jobs/x: HTTP 403 Forbidden: no']) {
      const { gates } = await probe(configOf(), { readBack: () => refused('ErrRejected', reason, 8) });
      expect(gates).toMatchObject({ reach: true, write: true, start: false, reasons: [`start: ${reason}`] });
      expect(gates!.startUnknown).toBeUndefined();
    }
  });

  it('cancelled while it stops: the stop is retried to its end all the same, and the probe ends cancelled, neither proven nor unproven', async () => {
    let attempts = 0;
    const { gates, error, stubs, name } = await probe(configOf(), {
      createTrainJob: 'unanswered',
      // The first attempt is cancelled under it and goes unanswered; its retry (after a workflow
      // timer, in the cancelled workflow) answers.
      stopTrainJob: async () => {
        if (++attempts > 1) return { deleted: [] };
        await cancelOwnWorkflow(ts.env);
        return unanswered('stopTrainJob (stubbed)');
      },
    });
    expect(gates).toBeUndefined();
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const stops = stubs.inputsOf('stopTrainJob');
    expect(stops.length).toBeGreaterThan(1);
    for (const stop of stops) expect(stop).toEqual(stopByName(name, 6));
  });
});
