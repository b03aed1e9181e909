// Step 5 and Start's undo with MultiKueue (docs/contract.md §11, docs/multikueue.md): the runtime
// copy on the manager and every worker cluster, the same object on each; a worker cluster that does
// not answer, or refuses, fails the step with this attempt's copies undone on every cluster that
// answers; never a copy another attempt made. The activities run in a mock activity context against
// in-memory API servers, one a cluster.
import { ApiException } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { runtimeActivities } from '../../../src/activities/runtime-activities.js';
import { undoStartActivities } from '../../../src/activities/undo-start-activities.js';
import { renderStart } from '../../../src/core/start/render.js';
import { TRAINING_RUNTIMES } from '../../../src/kube/objects.js';
import { Annotations } from '../../../src/model/constants.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { Config } from '../../../src/model/config.js';
import { config, exampleRequest, KUEUE, loadInputRuntime, validOf } from '../../golden/cases.js';
import { FakeCluster } from './support/fake-cluster.js';

const PLURAL = TRAINING_RUNTIMES.plural;
const NS = 'ml-jobs';

const multiKueue = (mode: 'kueue' | 'plain' = 'kueue'): Config => {
  const kueue = config(KUEUE);
  return { ...kueue, mode, kueue: { ...kueue.kueue, multiKueue: { clusters: [{ name: 'w1', kubeconfig: '/w1' }, { name: 'w2', kubeconfig: '/w2' }] } } };
};

function setup(cfg = multiKueue()) {
  const manager = new FakeCluster('manager');
  const w1 = new FakeCluster('w1');
  const w2 = new FakeCluster('w2');
  const env = { kube: manager.kube, requestTimeoutMs: 100, workerClusters: new Map([['w1', w1.kube], ['w2', w2.kube]]) };
  const { runtimeCopy: copy, trainJob } = renderStart(validOf(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' })), loadInputRuntime('dispatch-kind'), cfg);
  const name = copy.metadata!.name!;
  const token = copy.metadata!.annotations![Annotations.attemptToken]!;
  const input = { copy, trainJob, mode: cfg.mode, kueue: cfg.kueue };
  // A bound of 600 ms: the worker clusters are asked for 400 ms.
  const run = <A, R>(fn: (a: A) => Promise<R>, a: A) => new MockActivityEnvironment({ startToCloseTimeoutMs: 600, currentAttemptScheduledTimestampMs: Date.now() }).run(fn, a) as Promise<R>;
  const step5 = () => run(runtimeActivities(env).createRuntimeCopy, input);
  const undo = (extra: { trainJobUid?: string; ownerSet?: boolean } = {}) =>
    run(undoStartActivities(env).stopTrainJob, { namespace: NS, name, token, ownerSet: extra.ownerSet ?? true, step: 8, mode: cfg.mode, kueue: cfg.kueue, trainJob, ...(extra.trainJobUid ? { trainJobUid: extra.trainJobUid } : {}) });
  return { manager, w1, w2, copy, trainJob, name, token, step5, undo };
}

const failureOf = (run: Promise<unknown>) => run.then(() => undefined, (e: unknown) => e as DispatchError);
/** The copy as each cluster holds it, without what the server set. */
const asWritten = (o: { metadata?: object; spec?: unknown } | undefined) => {
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...metadata } = (o?.metadata ?? {}) as Record<string, unknown>;
  return { metadata, spec: o?.spec };
};

describe('step 5 with kueue.multiKueue', () => {
  it('makes the same copy (name, spec, labels, annotations) on the manager and on every worker cluster', async () => {
    const { manager, w1, w2, copy, name, step5 } = setup();
    const made = await step5();
    expect(made).toMatchObject({ name, reused: false, uid: manager.get(PLURAL, NS, name)!.metadata!.uid });
    for (const cluster of [manager, w1, w2]) expect(asWritten(cluster.get(PLURAL, NS, name))).toEqual(asWritten(copy));
  });

  it('adopts a worker copy this attempt made earlier (its token, no owner, same spec): created once', async () => {
    const { w1, copy, name, step5 } = setup();
    const earlier = w1.put(PLURAL, copy);
    await step5();
    expect(w1.get(PLURAL, NS, name)!.metadata!.uid).toBe(earlier.metadata!.uid);
  });

  it('a worker cluster that does not answer: ErrUnreachable at step 5 naming it, this attempt\'s copies undone on the manager and the other worker', async () => {
    const { manager, w1, w2, name, step5 } = setup();
    w2.silent = true;
    const started = Date.now();
    const failure = await failureOf(step5());
    expect(failure).toBeInstanceOf(DispatchError);
    expect(failure).toMatchObject({ type: 'ErrUnreachable', step: 5 });
    expect(failure!.reasons).toEqual([expect.stringMatching(/^worker cluster w2: create TrainingRuntime ml-jobs\/dj-\S+: no answer from the Kubernetes API \(ECONNREFUSED/)]);
    // Asked until two thirds of the bound, not given up on at the first silence.
    expect(w2.calls.length).toBeGreaterThan(1);
    expect(Date.now() - started).toBeLessThan(600);
    expect(manager.get(PLURAL, NS, name)).toBeUndefined();
    expect(w1.get(PLURAL, NS, name)).toBeUndefined();
  });

  it("the window counts from the attempt's start: in a fold whose step 2 took most of the bound, a silent worker is asked once", async () => {
    const { manager, w2, name, copy, trainJob } = setup();
    w2.silent = true;
    const env = { kube: manager.kube, requestTimeoutMs: 100, workerClusters: new Map([['w2', w2.kube]]) };
    const cfg = multiKueue();
    const attempt = new MockActivityEnvironment({ startToCloseTimeoutMs: 600, currentAttemptScheduledTimestampMs: Date.now() - 500 });
    const failure = await failureOf(attempt.run(runtimeActivities(env).createRuntimeCopy, { copy, trainJob, mode: cfg.mode, kueue: cfg.kueue }));
    expect(failure).toMatchObject({ type: 'ErrUnreachable', step: 5 });
    expect(w2.calls).toEqual(['create trainingruntimes']);
    expect(manager.get(PLURAL, NS, name)).toBeUndefined();
  });

  it('a worker cluster that refuses (a copy of another attempt in the way): ErrRejected; that copy kept, this attempt\'s undone', async () => {
    const { manager, w1, w2, copy, name, step5 } = setup();
    const theirs = w2.put(PLURAL, { ...copy, metadata: { ...copy.metadata, annotations: { ...copy.metadata!.annotations, [Annotations.attemptToken]: '0-000000000000' } } });
    const failure = await failureOf(step5());
    expect(failure).toMatchObject({ type: 'ErrRejected', step: 5 });
    expect(failure!.reasons).toEqual([expect.stringMatching(/^worker cluster w2: TrainingRuntime ml-jobs\/dj-\S+ already exists with attempt token 0-000000000000; this attempt's is /)]);
    expect(w2.get(PLURAL, NS, name)).toBe(theirs);
    expect(manager.get(PLURAL, NS, name)).toBeUndefined();
    expect(w1.get(PLURAL, NS, name)).toBeUndefined();
  });

  it('RBAC forbids the create on a worker: ErrReadOnly, naming the worker cluster', async () => {
    const { manager, w1, step5 } = setup();
    w1.refuse = new ApiException(403, 'Forbidden', { reason: 'Forbidden', message: 'trainingruntimes.trainer.kubeflow.org is forbidden: User "u" cannot create resource "trainingruntimes"' }, {});
    const failure = await failureOf(step5());
    expect(failure).toMatchObject({ type: 'ErrReadOnly', step: 5 });
    expect(failure!.reasons[0]).toMatch(/^worker cluster w1: creating TrainingRuntime /);
    expect(manager.objects.size).toBe(0);
  });

  it('a worker cluster the Start names that this worker has no clients for: ErrUnreachable, undone', async () => {
    const cfg = multiKueue();
    const three = { ...cfg, kueue: { ...cfg.kueue, multiKueue: { clusters: [...cfg.kueue.multiKueue!.clusters, { name: 'w3', kubeconfig: '/w3' }] } } };
    const { manager, w1, w2, step5 } = setup(three);
    const failure = await failureOf(step5());
    expect(failure).toMatchObject({ type: 'ErrUnreachable', step: 5 });
    expect(failure!.reasons).toEqual(['worker cluster w3: this worker has no clients for it: its configuration (kueue.multiKueue) names no such worker cluster']);
    expect([manager.objects.size, w1.objects.size, w2.objects.size]).toEqual([0, 0, 0]);
  });

  it('without MultiKueue (or outside Kueue mode) the worker clusters are never called', async () => {
    for (const cfg of [config(KUEUE), multiKueue('plain')]) {
      const { manager, w1, w2, name, step5 } = setup(cfg);
      await step5();
      expect(manager.get(PLURAL, NS, name)).toBeDefined();
      expect([w1.calls, w2.calls]).toEqual([[], []]);
    }
  });
});

describe("Start's undo with kueue.multiKueue", () => {
  it("deletes this attempt's copy on every worker cluster; another attempt's and an owned one are kept", async () => {
    const { w1, w2, copy, name, step5, undo } = setup();
    await step5();
    const owned = { ...w2.get(PLURAL, NS, name)!, metadata: { ...w2.get(PLURAL, NS, name)!.metadata, ownerReferences: [{ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', name, uid: 'w2-job' }] } };
    w2.objects.set(`${PLURAL}/${NS}/${name}`, owned);
    const result = await undo();
    expect(result.deleted).toEqual([`TrainingRuntime ${NS}/${name} on worker cluster w1`]);
    expect(w1.get(PLURAL, NS, name)).toBeUndefined();
    expect(w2.get(PLURAL, NS, name)).toBe(owned);

    const theirs = w1.put(PLURAL, { ...copy, metadata: { ...copy.metadata, annotations: { [Annotations.attemptToken]: 'other' } } });
    expect((await undo()).deleted).toEqual([]);
    expect(w1.get(PLURAL, NS, name)).toBe(theirs);
  });

  it('a worker cluster that does not answer fails nothing: its copy is left to the collector', async () => {
    const { w1, w2, name, step5, undo } = setup();
    await step5();
    w2.silent = true;
    const result = await undo();
    expect(result.deleted).toEqual([`TrainingRuntime ${NS}/${name} on worker cluster w1`]);
    w2.silent = false;
    expect(w2.get(PLURAL, NS, name)).toBeDefined();
    expect(w1.get(PLURAL, NS, name)).toBeUndefined();
  });

  it('a TrainJob left to the caller keeps every worker copy (it may run on any of them)', async () => {
    const { manager, w1, w2, name, token, step5, undo, copy } = setup();
    await step5();
    const job = manager.put('trainjobs', { metadata: { name, namespace: NS, annotations: { [Annotations.attemptToken]: token, 'dispatch.phpboyscout.uk/held': 'true' } }, spec: copy.spec });
    const result = await undo({ trainJobUid: job.metadata!.uid! });
    expect(result.left).toHaveLength(1);
    expect([w1.get(PLURAL, NS, name), w2.get(PLURAL, NS, name)].every(Boolean)).toBe(true);
  });
});
