// A Start retried after its earlier run succeeded, on the real stack (docs/contract.md §7): the
// retried run adopts the earlier TrainJob only while the caller has neither opened nor held it, and
// its compensation (a cancellation at step 5 or 6) never deletes that TrainJob. And the preflight
// probe (§8): a probe whose TrainJob create goes unanswered leaves the start gate unknown, so Starts
// get the retryable ErrUnreachable until a probe succeeds. Faults come from the fault proxy.
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startWorkflowId } from '../../../src/contract/names.js';
import { parseGoDuration, toMillis } from '../../../src/model/duration.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import { Trainer } from '../../../src/model/constants.js';
import type { TrainJob } from '../../../src/model/kube.js';
import type { StartRequest } from '../../../src/model/request.js';
import type { StartResult } from '../../../src/model/results.js';
import { startRequest } from '../../support/requests.js';
import type { DispatchHarness } from '../support/dispatch.js';
import { startFaultProxy, type FaultProxy, type FaultRule } from '../support/fault-proxy.js';
import { dispatchSuite, type DispatchSuite } from '../support/suite.js';

const refOf = (started: StartResult): TrainJobRef => ({ namespace: started.namespace, name: started.name, uid: started.uid });

/** The TrainJob as the API server holds it, read directly (not through the proxy). */
async function readTrainJob(h: DispatchHarness, name: string): Promise<TrainJob> {
  const { group, version, trainJobPlural: plural } = Trainer;
  return (await h.kube.custom.getNamespacedCustomObject({ group, version, plural, namespace: h.config.namespace, name })) as TrainJob;
}

/** A DispatchError the Start failed with. */
async function failureOf(h: DispatchHarness, request: StartRequest): Promise<DispatchError> {
  const error = await h.client.startTrainJob(request).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DispatchError);
  return error as DispatchError;
}

/** A fault proxy between the suite's worker and the API server; cleared after each test. */
function proxiedSuite(prefix: string, options: { call: string; gates?: 'none' }): { suite: DispatchSuite; proxy: () => FaultProxy } {
  let proxy: FaultProxy;
  // Registered before the suite's: vitest runs afterAll hooks last-registered first, so the proxy
  // closes after the worker that talks through it.
  afterAll(async () => proxy?.close());
  const suite = dispatchSuite(prefix, async (namespace) => {
    proxy = await startFaultProxy();
    return {
      access: proxy.accessFor({ ...proxy.accessFor(), namespace }),
      config: { timeouts: { call: options.call, workload: '3s' } },
      requestTimeoutMs: 1_000,
      ...(options.gates ? { gates: options.gates } : {}),
    };
  });
  afterEach(() => proxy.clear());
  return { suite, proxy: () => proxy };
}

describe('a retried Start of an attempt whose earlier run succeeded', () => {
  // CallBound long enough that a cancellation lands while step 5 or 6 is still retrying its create.
  const { suite, proxy } = proxiedSuite('retried-start', { call: '20s' });
  const post = (plural: string): FaultRule => ({
    method: 'POST',
    path: `/apis/${Trainer.group}/${Trainer.version}/namespaces/${suite.ns.name}/${plural}`,
    times: Infinity,
    action: 'reset',
  });

  /**
   * Starts the attempt again (a new run of the same workflow id: the earlier one closed), waits
   * until its create of `plural` has met the proxy's reset, cancels it, and answers the stop's
   * result once the run ended cancelled.
   */
  async function cancelledDuringCreate(request: StartRequest, plural: string): Promise<unknown> {
    const rule = proxy().inject(post(plural));
    const handle = await suite.h.client.submit(request);
    await expect.poll(() => rule.hits, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);
    await handle.cancel();
    const error = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    proxy().clear();
    const stops = suite.h.calls.of(handle.workflowId).filter((c) => c.runId === handle.firstExecutionRunId && c.type === 'stopTrainJob');
    expect(stops.length).toBeGreaterThan(0);
    return stops.at(-1)!.result;
  }

  it('cancelled during step 5 after the caller opened the earlier TrainJob: the TrainJob is left as it is, and the stop says why', async () => {
    const request = startRequest();
    const first = await suite.h.client.startTrainJob(request);
    await suite.h.client.open(refOf(first));
    const opened = await readTrainJob(suite.h, first.name);

    const stopped = await cancelledDuringCreate(request, Trainer.trainingRuntimePlural);
    expect(stopped).toEqual({ deleted: [], left: [{ ref: refOf(first), reason: expect.stringContaining('the caller has opened it') }] });
    const after = await readTrainJob(suite.h, first.name);
    expect(after.metadata.uid).toBe(first.uid);
    expect(after.metadata.deletionTimestamp).toBeUndefined();
    // Running now, Trainer updates its status; what dispatch and the caller wrote is untouched.
    expect({ spec: after.spec, annotations: after.metadata.annotations }).toEqual({ spec: opened.spec, annotations: opened.metadata.annotations });
  });

  it('cancelled during step 6 after adopting the earlier TrainJob: the adopted TrainJob is left, never deleted', async () => {
    const request = startRequest();
    const first = await suite.h.client.startTrainJob(request);

    const stopped = await cancelledDuringCreate(request, Trainer.trainJobPlural);
    expect(stopped).toEqual({
      deleted: [],
      left: [{ ref: refOf(first), reason: expect.stringContaining('an earlier run of this attempt started it') }],
    });
    const after = await readTrainJob(suite.h, first.name);
    expect(after.metadata.uid).toBe(first.uid);
    expect(after.metadata.deletionTimestamp).toBeUndefined();
    // Still the caller's to use: a third run of the attempt adopts it and answers the same ref.
    expect(refOf(await suite.h.client.startTrainJob(request))).toEqual(refOf(first));
  });

  it('of a TrainJob the caller has held: refused ErrRejected at step 5 with its ref, and the TrainJob left unchanged', async () => {
    const request = startRequest();
    const first = await suite.h.client.startTrainJob(request);
    await suite.h.client.hold(refOf(first));
    const held = await readTrainJob(suite.h, first.name);

    const error = await failureOf(suite.h, request);
    expect(error.type).toBe('ErrRejected');
    expect(error.step).toBe(5);
    expect(error.ref).toEqual(refOf(first));
    expect(error.reasons).toEqual([
      `runtime copy ${suite.ns.name}/${first.name} already exists and is owned by TrainJob/${first.name}`,
      expect.stringContaining('the caller has held it'),
    ]);
    const after = await readTrainJob(suite.h, first.name);
    expect(after.metadata.uid).toBe(first.uid);
    // Trainer's controller may still update its status (so not the resourceVersion): what a Start
    // writes, the spec, labels and annotations, is as the Hold left it.
    expect(after.spec).toEqual(held.spec);
    expect(after.metadata.labels).toEqual(held.metadata.labels);
    expect(after.metadata.annotations).toEqual(held.metadata.annotations);
    expect(after.metadata.deletionTimestamp).toBeUndefined();
  });

  it('Find answers InFlight, for CallBound, after a Start ended ErrOutcomeUnknown (its TrainJob create unanswered)', async () => {
    const request = startRequest();
    proxy().inject(post(Trainer.trainJobPlural));
    const error = await failureOf(suite.h, request);
    expect(error.type).toBe('ErrOutcomeUnknown');
    proxy().clear();
    const workflowId = startWorkflowId(suite.ns.name, error.ref!.name, request.attempt);
    const callMs = toMillis(parseGoDuration(suite.h.config.timeouts.call)!);
    await expect
      .poll(() => suite.h.client.find(request.job, request.submission, suite.h.kube, callMs), { timeout: 15_000, interval: 250 })
      .toEqual({ state: 'InFlight', workflowId });
  });
});

describe('the preflight probe without a definite answer (docs/contract.md §8)', () => {
  const { suite, proxy } = proxiedSuite('probe-unknown', { call: '3s', gates: 'none' });

  it('a probe whose TrainJob create is reset leaves the start gate unknown: Starts are refused ErrUnreachable, and start once a probe succeeds', async () => {
    proxy().inject({
      method: 'POST',
      path: `/apis/${Trainer.group}/${Trainer.version}/namespaces/${suite.ns.name}/${Trainer.trainJobPlural}`,
      times: Infinity,
      action: 'reset',
    });
    const gates = await suite.h.worker.preflight();
    proxy().clear();
    expect(gates).toMatchObject({ reach: true, write: true, start: false, startUnknown: true });

    const refused = await failureOf(suite.h, startRequest());
    expect(refused.type).toBe('ErrUnreachable');
    expect(refused.step).toBe(1);
    expect(refused.reasons).toEqual([expect.stringMatching(/^start: waiting for TrainJob /)]);

    expect(await suite.h.worker.preflight()).toMatchObject({ reach: true, write: true, start: true, reasons: [] });
    expect((await suite.h.client.startTrainJob(startRequest())).uid).toBeTruthy();
  });
});
