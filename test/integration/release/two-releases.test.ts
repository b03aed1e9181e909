// Two releases of dispatch on one Temporal namespace and one cluster (docs/contract.md §10,
// docs/deploy.md "Several releases"): two workers, each acting in a Kubernetes namespace of its
// own. With a task queue each, every Start and operation lands in its own namespace. With one
// queue shared, a workflow taken by the other release's worker is refused ErrRejected before any
// call, naming both namespaces, nothing is created or changed in either namespace, and each worker
// reports the other namespace among its queue's pollers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import { Trainer } from '../../../src/model/constants.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, type TestNamespace } from '../support/kube.js';
import { expectNothingCreated, trainerObjectNames } from '../support/refusals.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { until } from '../support/operations.js';

let nsA: TestNamespace;
let nsB: TestNamespace;
const harnesses: DispatchHarness[] = [];

beforeAll(async () => {
  [nsA, nsB] = await Promise.all([freshNamespace('release-a'), freshNamespace('release-b')]);
});
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
  await Promise.all([nsA?.dispose(), nsB?.dispose()]);
});

async function release(namespace: string, taskQueue?: string): Promise<DispatchHarness> {
  const h = await startDispatch({ namespace, ...(taskQueue ? { taskQueue } : {}) });
  harnesses.push(h);
  return h;
}

/** The dispatch TrainJobs of a namespace, by name. */
async function trainJobNames(h: DispatchHarness, namespace: string): Promise<string[]> {
  return (await trainerObjectNames(h.kube, namespace)).trainjobs;
}

/** Reads the worker's queue's pollers until they name what `until` waits for (pollers appear as they poll). */
const sharingUntil = (h: DispatchHarness, wanted: (others: string[]) => boolean): Promise<string[]> =>
  until("the queue's pollers to match", 60_000, async () => {
    const others = (await h.worker.queueSharing.check())?.otherNamespaces;
    return others && wanted(others) ? others : undefined;
  });

const metric = async (h: DispatchHarness, name: string) => (await h.worker.metrics.registry.getSingleMetricAsString(name)).split('\n').filter((l) => !l.startsWith('#'));

describe('two releases, one Temporal namespace, one cluster', () => {
  let startedInA: TrainJobRef;

  it('with a task queue each, every Start lands in its own namespace, and neither queue is shared', async () => {
    const [a, b] = await Promise.all([release(nsA.name), release(nsB.name)]);
    const requests = [startRequest(), startRequest(), startRequest()];
    const [inA, inB] = await Promise.all([
      Promise.all(requests.map((r) => a.client.startTrainJob(r))),
      Promise.all(requests.map((r) => b.client.startTrainJob(r))),
    ]);
    expect(inA.map((r) => r.namespace)).toEqual([nsA.name, nsA.name, nsA.name]);
    expect(inB.map((r) => r.namespace)).toEqual([nsB.name, nsB.name, nsB.name]);
    expect((await trainJobNames(a, nsA.name)).sort()).toEqual(inA.map((r) => r.name).sort());
    expect((await trainJobNames(b, nsB.name)).sort()).toEqual(inB.map((r) => r.name).sort());
    startedInA = { namespace: nsA.name, name: inA[0]!.name, uid: inA[0]!.uid };
    // An operation of each release on its own TrainJob.
    expect((await a.client.hold(startedInA)).ref).toEqual(startedInA);
    expect(await a.worker.queueSharing.check()).toEqual({ otherNamespaces: [], unidentifiedPollers: [] });
    expect(await b.worker.queueSharing.check()).toEqual({ otherNamespaces: [], unidentifiedPollers: [] });
  });

  it("with one queue shared, the other release's worker refuses a Start and an operation before any call, naming both namespaces, and both workers report the sharing", async () => {
    const shared = uniqueTaskQueue('shared');
    // Only release B's worker polls the shared queue yet: release A's workflows on it go to B.
    const b = await release(nsB.name, shared);
    const callerOfA = new DispatchKubeflowClient(b.env.client, { namespace: nsA.name, taskQueue: shared });
    const before = { a: await trainerObjectNames(b.kube, nsA.name), b: await trainerObjectNames(b.kube, nsB.name) };

    await expectNothingCreated(b.kube, nsB.name, () =>
      expect(callerOfA.startTrainJob(startRequest())).rejects.toMatchObject({
        type: 'ErrRejected',
        step: 1,
        reasons: [expect.stringMatching(new RegExp(`names namespace ${nsA.name}, but the worker that took it acts in namespace ${nsB.name}: task queue ${shared}`))],
      }),
    );
    const held = await b.kube.custom.getNamespacedCustomObject({ group: Trainer.group, version: Trainer.version, namespace: nsA.name, plural: Trainer.trainJobPlural, name: startedInA.name });
    await expect(callerOfA.release(startedInA)).rejects.toMatchObject({
      type: 'ErrRejected',
      step: 0,
      reasons: [expect.stringContaining(`acts in namespace ${nsB.name}`)],
    });
    const after = await b.kube.custom.getNamespacedCustomObject({ group: Trainer.group, version: Trainer.version, namespace: nsA.name, plural: Trainer.trainJobPlural, name: startedInA.name });
    // The Release acted on nothing: the held TrainJob is as it was.
    expect((after as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe((held as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    expect({ a: await trainerObjectNames(b.kube, nsA.name), b: await trainerObjectNames(b.kube, nsB.name) }).toEqual(before);
    expect(await metric(b, 'dispatch_foreign_workflows_refused_total')).toContain(`dispatch_foreign_workflows_refused_total{workflow_namespace="${nsA.name}"} 2`);

    // Release A's worker joins the queue: each worker names the other's namespace among its pollers.
    const a = await release(nsA.name, shared);
    expect(await sharingUntil(b, (others) => others.includes(nsA.name))).toEqual([nsA.name]);
    expect(await sharingUntil(a, (others) => others.includes(nsB.name))).toEqual([nsB.name]);
    expect(await metric(b, 'dispatch_task_queue_shared')).toContain(`dispatch_task_queue_shared{other_namespace="${nsA.name}"} 1`);
  });
});
