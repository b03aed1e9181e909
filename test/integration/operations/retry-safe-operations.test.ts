// The operations after Start are retry-safe (docs/contract.md §9a), on the real stack (real Trainer,
// JobSet, Job controller, scheduler, KWOK nodes), plain mode: a Hold and Release of a job never
// opened leave it Gated; a Release retried after it succeeded answers the state; a write that
// lands but whose answer the fault proxy drops answers the right state; a ref whose name now
// belongs to another UID is Absent for Stop and Watch, which leave the new one alone; RBAC's 403
// is ErrReadOnly.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { operationWorkflowId } from '../../../src/contract/names.js';
import { Trainer } from '../../../src/model/constants.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import { OperationAnnotations } from '../../../src/model/constants.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { freshNamespace, kubeAccess, kubeConfig, type TestNamespace } from '../support/kube.js';
import { until } from '../support/operations.js';
import { runtimeFixtures, type RuntimeFixtures, type RuntimeRef } from '../support/runtimes.js';
import { minimalTrainJob, trainerObjects } from '../support/trainer.js';
import { childrenOf, readTrainJob, refOf, runFor } from './support.js';

let ns: TestNamespace;
let proxy: FaultProxy;
let h: DispatchHarness;
let runtimes: RuntimeFixtures;
let long: RuntimeRef;

beforeAll(async () => {
  ns = await freshNamespace('lc-retry');
  proxy = await startFaultProxy();
  h = await startDispatch({ namespace: ns.name, access: proxy.accessFor({ ...proxy.accessFor(), namespace: ns.name }), config: { timeouts: { call: '10s', workload: '5s' } } });
  runtimes = runtimeFixtures(h.kube);
  long = await runtimes.namespaced(ns.name, 'long', runFor('120s'));
});
afterEach(() => proxy.clear());
afterAll(async () => {
  await h?.close();
  await proxy?.close();
  await runtimes?.dispose();
  await ns?.dispose();
});

async function started(): Promise<{ ref: TrainJobRef; jobId: string }> {
  const request = startRequest({ runtime: long });
  return { ref: refOf(await h.client.startTrainJob(request)), jobId: request.job.toLowerCase() };
}

async function refusal(operation: Promise<unknown>): Promise<DispatchError> {
  const error = await operation.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(DispatchError);
  return error as DispatchError;
}

const trainJobPath = (ref: TrainJobRef) => `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ref.namespace}/${Trainer.trainJobPlural}/${ref.name}`;
/**
 * Waits until Trainer has stopped updating the TrainJob's status after the last change (its
 * resourceVersion the same over 2 s), so that the write the fault proxy drops is the operation's
 * own landing write and not one that a status update made stale first.
 */
async function settled(ref: TrainJobRef): Promise<void> {
  let last = (await readTrainJob(h.kube, ref))?.metadata.resourceVersion;
  await until('Trainer to stop updating the TrainJob', 60_000, async () => {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const now = (await readTrainJob(h.kube, ref))?.metadata.resourceVersion;
    const same = now === last;
    last = now;
    return same ? true : undefined;
  });
}

const runningPod = (ref: TrainJobRef, jobId: string) => async () => ((await childrenOf(ref, jobId)).pods.some((p) => p.phase === 'Running') ? true : undefined);

describe('declarative: each operation makes its fact true and answers the state', () => {
  it('Hold, then Release, of a job never opened: it stays Gated, suspended, with no pods; Open then runs it', async () => {
    const { ref, jobId } = await started();
    expect(await h.client.hold(ref)).toMatchObject({ ref, phase: 'Held', held: true });
    expect(await h.client.release(ref)).toMatchObject({ ref, phase: 'Gated', held: false });
    const job = await readTrainJob(h.kube, ref);
    expect(job?.spec.suspend).toBe(true);
    expect(job?.metadata.annotations?.[OperationAnnotations.held]).toBeUndefined();
    expect((await childrenOf(ref, jobId)).pods).toEqual([]);
    expect(await h.client.open(ref)).toMatchObject({ ref, phase: 'Running' });
    await until('a pod of the opened job to run', 60_000, runningPod(ref, jobId));
  });

  it('a Release retried after it succeeded answers the same state, not a refusal', async () => {
    const { ref } = await started();
    await h.client.open(ref);
    expect(await h.client.hold(ref)).toMatchObject({ phase: 'Held' });
    expect(await h.client.release(ref)).toMatchObject({ ref, phase: 'Running', held: false });
    expect(await h.client.release(ref)).toMatchObject({ ref, phase: 'Running', held: false });
  });

  it.each(['open', 'hold', 'release'] as const)('%s whose write lands but whose answer is dropped answers the right state', async (op) => {
    const { ref } = await started();
    if (op !== 'open') await h.client.open(ref);
    if (op === 'release') await h.client.hold(ref);
    await settled(ref);
    const drop = proxy.inject({ method: 'PATCH', path: trainJobPath(ref), times: 1, action: 'drop-response' });
    const state = await h.client[op](ref);
    expect(drop.hits).toBe(1);
    expect(state).toMatchObject({ ref, phase: op === 'hold' ? 'Held' : 'Running', held: op === 'hold' });
    const patches = proxy.requests.filter((r) => r.method === 'PATCH' && r.path === trainJobPath(ref));
    const dropped = patches.findIndex((r) => r.fault === 'drop-response');
    // The write whose answer was dropped landed; its retry found the object changed (its resourceVersion test failed).
    expect(patches[dropped]?.upstreamStatus).toBe(200);
    expect(patches.slice(dropped + 1).map((r) => r.upstreamStatus)).toContain(422);
  });
});

describe('the ref’s UID decides', () => {
  it('Stop and Watch of a ref whose name now belongs to another UID answer Absent and leave the new one', async () => {
    const { ref } = await started();
    expect(await h.client.stop(ref)).toMatchObject({ ref, phase: 'Absent' });
    await until('the stopped TrainJob to be gone', 60_000, async () => ((await readTrainJob(h.kube, ref)) === undefined ? true : undefined));
    const successor = await trainerObjects(kubeConfig(), ns.name, Trainer.trainJobPlural).create(minimalTrainJob(ref.name));
    expect(successor.metadata?.uid).not.toBe(ref.uid);
    for (const op of ['stop', 'open', 'hold', 'release'] as const) expect(await h.client[op](ref), op).toMatchObject({ ref, phase: 'Absent' });
    expect(await h.client.watch(ref)).toMatchObject({ ref, phase: 'Absent' });
    const after = await readTrainJob(h.kube, ref);
    expect(after?.metadata.uid).toBe(successor.metadata?.uid);
    expect(after?.metadata.deletionTimestamp).toBeUndefined();
    expect(after?.spec.suspend).toBe(true);
    expect(after?.metadata.annotations ?? {}).toEqual(successor.metadata?.annotations ?? {});
  });
});

describe('Watch through an API that does not answer', () => {
  it('keeps waiting, says since when in its current details, counts the unanswered reads, and answers once the API does', async () => {
    const { ref } = await started();
    const silence = proxy.inject({ method: 'GET', path: trainJobPath(ref), times: Infinity, action: 'status-500' });
    const watching = h.client.watch(ref);
    const handle = h.env.client.workflow.getHandle(operationWorkflowId('watch', ref));
    const details = await until('the Watch to say the API has not answered', 90_000, async () => {
      const shown = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata').catch(() => undefined);
      return shown?.currentDetails.includes('the API has not answered since') ? shown.currentDetails : undefined;
    });
    expect(details).toMatch(/the API has not answered since \d{4}-\d\d-\d\dT/);
    // It reads again (after 1 s, then 2 s, ...), the details kept.
    await until('the Watch to read again', 30_000, async () => (silence.hits > 1 ? true : undefined));
    expect((await h.worker.metrics.watchUnanswered.get()).values.find((v) => v.labels.call === 'read')?.value).toBeGreaterThan(1);
    proxy.clear();
    expect(await h.client.stop(ref)).toMatchObject({ ref, phase: 'Absent' });
    expect(await watching).toMatchObject({ ref, phase: 'Absent' });
  });
});

describe('RBAC', () => {
  it('an operation whose write RBAC forbids is ErrReadOnly, and nothing changes', async () => {
    const { ref } = await started();
    const readOnly = await startDispatch({ namespace: ns.name, access: kubeAccess('restricted', ns.name) });
    try {
      for (const op of ['open', 'stop'] as const) {
        const error = await refusal(readOnly.client[op](ref));
        expect(error.type, op).toBe('ErrReadOnly');
        expect(error.reasons[0], op).toMatch(/is forbidden \(HTTP 403/);
      }
    } finally {
      await readOnly.close();
    }
    expect(await readTrainJob(h.kube, ref)).toMatchObject({ metadata: { uid: ref.uid }, spec: { suspend: true } });
  });
});
