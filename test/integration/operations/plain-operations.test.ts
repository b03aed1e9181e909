// Open, Hold, Release, Stop and Watch in plain mode on the real stack (real Trainer, JobSet, Job
// controller, scheduler, KWOK nodes): each operation's effect, its refusals (nothing changed), its
// idempotence, and Watch's outcomes for a job that succeeds, fails with an exit code, or runs out
// of time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels } from '../../../src/model/constants.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import { OperationAnnotations } from '../../../src/model/constants.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, kubeConfig, type TestNamespace } from '../support/kube.js';
import { until } from '../support/operations.js';
import { runtimeFixtures, type RuntimeFixtures, type RuntimeRef } from '../support/runtimes.js';
import { minimalTrainJob, trainerObjects } from '../support/trainer.js';
import { childrenOf, failWith, readTrainJob, refOf, runFor } from './support.js';

let ns: TestNamespace;
let h: DispatchHarness;
let runtimes: RuntimeFixtures;
let slow: RuntimeRef;

beforeAll(async () => {
  ns = await freshNamespace('lc-ops');
  h = await startDispatch({ namespace: ns.name, config: {} });
  runtimes = runtimeFixtures(h.kube);
  slow = await runtimes.namespaced(ns.name, 'slow', runFor('6s'));
});
afterAll(async () => {
  await h?.close();
  await runtimes?.dispose();
  await ns?.dispose();
});

async function started(runtime?: RuntimeRef, spec: Record<string, unknown> = {}): Promise<{ ref: TrainJobRef; jobId: string }> {
  const request = startRequest({ ...(runtime ? { runtime } : {}), spec });
  const result = await h.client.startTrainJob(request);
  return { ref: refOf(result), jobId: request.job.toLowerCase() };
}

async function refusal(operation: Promise<unknown>): Promise<DispatchError> {
  const error = await operation.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DispatchError);
  return error as DispatchError;
}

/**
 * What the operations may change of a TrainJob: its spec (generation), labels and annotations. Its
 * resourceVersion moves with every status update of Trainer's, so it says nothing of dispatch's writes.
 */
const writable = async (ref: TrainJobRef) => {
  const job = await readTrainJob(h.kube, ref);
  return job && { generation: job.metadata.generation, labels: job.metadata.labels, annotations: job.metadata.annotations };
};

describe('Open and Watch', () => {
  it('Open: spec.suspend false, Running; again, and concurrently: the same state, nothing written', async () => {
    const { ref } = await started(slow);
    const opened = await h.client.open(ref);
    expect(opened).toMatchObject({ ref, phase: 'Running', held: false });
    expect((await readTrainJob(h.kube, ref))?.spec.suspend).toBe(false);
    const before = await writable(ref);
    const again = await Promise.all([h.client.open(ref), h.client.open(ref), h.client.open(ref)]);
    for (const state of again) expect(state).toMatchObject({ ref, phase: 'Running' });
    expect(await writable(ref)).toEqual(before);
    expect(await h.client.watch(ref)).toMatchObject({ ref, phase: 'Succeeded', reason: 'AllJobsCompleted' });
  });

  it('a failing job: Watch ends Failed with the exit code of the failed node container (125)', async () => {
    const failing = await runtimes.namespaced(ns.name, 'fail125', failWith(125));
    const { ref } = await started(failing);
    await h.client.open(ref);
    const outcome = await h.client.watch(ref);
    expect(outcome).toMatchObject({ ref, phase: 'Failed', exitCode: 125 });
    console.log(`[operations] failing job: ${JSON.stringify(outcome)}`);
  });

  it('activeDeadlineSeconds exceeded: Watch ends Failed, reason DeadlineExceeded', async () => {
    const long = await runtimes.namespaced(ns.name, 'long', runFor('120s'));
    const { ref } = await started(long, { timeLimit: '3s' });
    await h.client.open(ref);
    expect(await h.client.watch(ref)).toMatchObject({ ref, phase: 'Failed', reason: 'DeadlineExceeded' });
  });
});

describe('Hold and Release', () => {
  it('Hold while running: suspended and marked held, its pods gone; Release: it runs again and completes', async () => {
    const long = await runtimes.namespaced(ns.name, 'hold', runFor('8s'));
    const { ref, jobId } = await started(long);
    await h.client.open(ref);
    await until('a pod of the job to run', 30_000, async () => ((await childrenOf(ref, jobId)).pods.some((p) => p.phase === 'Running') ? true : undefined));

    const held = await h.client.hold(ref);
    expect(held).toMatchObject({ ref, phase: 'Held', held: true });
    const job = await readTrainJob(h.kube, ref);
    expect(job?.spec.suspend).toBe(true);
    expect(job?.metadata.annotations?.[OperationAnnotations.held]).toBe('true');
    await until('the held job to have no live pods', 30_000, async () =>
      (await childrenOf(ref, jobId)).pods.every((p) => p.deleting) ? true : undefined,
    );
    const before = await writable(ref);
    expect(await h.client.hold(ref)).toMatchObject({ phase: 'Held', held: true });
    expect(await writable(ref)).toEqual(before);

    const released = await h.client.release(ref);
    expect(released).toMatchObject({ ref, phase: 'Running', held: false });
    const resumed = await readTrainJob(h.kube, ref);
    expect(resumed?.spec.suspend).toBe(false);
    expect(resumed?.metadata.annotations?.[OperationAnnotations.held]).toBeUndefined();
    expect(await h.client.watch(ref)).toMatchObject({ ref, phase: 'Succeeded' });
  });

  it('Hold before Open: Held; Open of a held job: records opened, still Held and suspended; Release runs it', async () => {
    const { ref } = await started(slow);
    expect(await h.client.hold(ref)).toMatchObject({ phase: 'Held', held: true });
    expect(await h.client.open(ref)).toMatchObject({ phase: 'Held', held: true });
    const job = await readTrainJob(h.kube, ref);
    expect(job?.spec.suspend).toBe(true);
    expect(job?.metadata.annotations?.[OperationAnnotations.opened]).toBe('true');
    expect(await h.client.release(ref)).toMatchObject({ phase: 'Running', held: false });
    expect(await h.client.watch(ref)).toMatchObject({ phase: 'Succeeded' });
  });
});

describe('answers and refusals (docs/contract.md §9a): nothing changed', () => {
  it('Release of one not held answers its state', async () => {
    const { ref } = await started(slow);
    const before = await writable(ref);
    expect(await h.client.release(ref)).toMatchObject({ ref, phase: 'Gated', held: false });
    expect(await writable(ref)).toEqual(before);
  });

  it('Open and Release of a finished job answer Succeeded; Hold of it is ErrRejected', async () => {
    const { ref } = await started(slow);
    await h.client.open(ref);
    await h.client.watch(ref);
    const before = await writable(ref);
    for (const op of ['open', 'release'] as const) expect(await h.client[op](ref), op).toMatchObject({ ref, phase: 'Succeeded' });
    const error = await refusal(h.client.hold(ref));
    expect(error.type).toBe('ErrRejected');
    expect(error.reasons[0]).toMatch(/it has Succeeded/);
    expect(await writable(ref)).toEqual(before);
  });

  it('another UID: every operation answers Absent, Watch too; a TrainJob without dispatch labels is refused', async () => {
    const { ref } = await started(slow);
    const other = { ...ref, uid: '00000000-0000-4000-8000-000000000000' };
    const before = await writable(ref);
    for (const op of ['open', 'hold', 'release', 'stop', 'watch'] as const) {
      expect(await h.client[op](other), op).toMatchObject({ ref: other, phase: 'Absent' });
    }
    expect(await writable(ref)).toEqual(before);

    const foreign = await trainerObjects(kubeConfig(), ns.name, 'trainjobs').create(minimalTrainJob('not-dispatchs'));
    const foreignRef = { namespace: ns.name, name: 'not-dispatchs', uid: foreign.metadata?.uid ?? '' };
    for (const op of ['open', 'stop'] as const) {
      const error = await refusal(h.client[op](foreignRef));
      expect(error.reasons.join('\n')).toContain(Labels.managedBy);
    }
    expect(await readTrainJob(h.kube, foreignRef)).toMatchObject({ spec: { suspend: true } });
  });

  it('a ref outside the worker namespace, and a malformed ref', async () => {
    const error = await refusal(h.client.open({ namespace: 'elsewhere', name: 'x', uid: 'u' }));
    expect(error.reasons[0]).toContain(`dispatch works in namespace ${ns.name} only`);
    const invalid = await refusal(h.client.open({ namespace: 'Bad_NS', name: 'x', uid: '' } as TrainJobRef));
    expect(invalid.type).toBe('ErrInvalid');
  });
});

describe('Stop', () => {
  it('removes the TrainJob, its runtime copy, the JobSet, the Jobs and the pods; again: Absent', async () => {
    const long = await runtimes.namespaced(ns.name, 'stop', runFor('60s'));
    const { ref, jobId } = await started(long);
    await h.client.open(ref);
    await until('the JobSet, Jobs and pods to exist', 30_000, async () => {
      const c = await childrenOf(ref, jobId);
      return c.jobSets.length > 0 && c.jobs.length > 0 && c.pods.length > 0 ? c : undefined;
    });
    const stopped = await Promise.all([h.client.stop(ref), h.client.stop(ref)]);
    for (const state of stopped) expect(state).toMatchObject({ ref, phase: 'Absent' });
    await until('everything the TrainJob made to be gone', 60_000, async () => {
      const c = await childrenOf(ref, jobId);
      const copy = await trainerObjects(kubeConfig(), ns.name, 'trainingruntimes').find(ref.name);
      return (await readTrainJob(h.kube, ref)) === undefined && !copy && c.jobSets.length === 0 && c.jobs.length === 0 && c.pods.length === 0
        ? true
        : undefined;
    });
    expect(await h.client.stop(ref)).toMatchObject({ phase: 'Absent' });
    expect(await h.client.watch(ref)).toMatchObject({ phase: 'Absent' });
  });
});
