// The write gate with MultiKueue worker clusters (docs/contract.md §8, docs/multikueue.md "The
// backend gates and the worker clusters"): checkWrite reviews, with each worker cluster's own
// identity, what Start's step 5 and the collector need there, and names the cluster in its reasons.
// A denial is definite (the gate refused: ErrReadOnly); a worker cluster that does not answer
// throws ErrUnreachable without a definite answer, which the probe turns into an unknown write gate
// (Starts wait, then ErrUnreachable), naming the cluster.
import { ApiException } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { gateActivities, workerClusterGateChecks, writeGateChecks } from '../../../src/activities/gate-activities.js';
import { DispatchError } from '../../../src/model/errors.js';
import { FakeCluster } from './support/fake-cluster.js';

const NS = 'ml-jobs';

function setup() {
  const manager = new FakeCluster('manager');
  const w1 = new FakeCluster('worker-1');
  const w2 = new FakeCluster('worker-2');
  const env = { kube: manager.kube, requestTimeoutMs: 100, workerClusters: new Map([['worker-1', w1.kube], ['worker-2', w2.kube]]) };
  const checkWrite = () => new MockActivityEnvironment().run(gateActivities(env).checkWrite, { namespace: NS }) as Promise<{ reasons: string[] }>;
  return { manager, w1, w2, env, checkWrite };
}

describe("the write gate's reviews on the worker clusters", () => {
  it('asks each worker cluster, with its own identity, create, get, delete and list of trainingruntimes in the namespace: all allowed, no reason', async () => {
    const { manager, w1, w2, checkWrite } = setup();
    expect(await checkWrite()).toEqual({ reasons: [] });
    const asked = ['review create trainingruntimes', 'review get trainingruntimes', 'review delete trainingruntimes', 'review list trainingruntimes'];
    expect(w1.calls).toEqual(asked);
    expect(w2.calls).toEqual(asked);
    // The manager's reviews are the write gate's as before: nothing of the worker clusters' asked there.
    expect(manager.calls).toEqual(writeGateChecks(NS).map((c) => `review ${c.verb} ${c.resource}`));
    expect(workerClusterGateChecks(NS)).toEqual(asked.map((a) => ({ verb: a.split(' ')[1], resource: 'trainingruntimes', namespace: NS })));
  });

  it('a permission a worker cluster denies is a reason naming the cluster, the verb and the namespace (the gate definitely refused)', async () => {
    const { w1, w2, checkWrite } = setup();
    w2.denied.add('list trainingruntimes');
    w2.denied.add('get trainingruntimes');
    expect(await checkWrite()).toEqual({
      reasons: [
        `write: worker cluster worker-2: not allowed to get trainingruntimes in namespace ${NS}`,
        `write: worker cluster worker-2: not allowed to list trainingruntimes in namespace ${NS}`,
      ],
    });
    expect(w1.calls).toHaveLength(4);
  });

  it('a worker cluster that refuses the review itself is a definite reason naming it', async () => {
    const { w1, checkWrite } = setup();
    w1.refuse = new ApiException(401, 'Unauthorized', { reason: 'Unauthorized', message: 'Unauthorized' }, {});
    const { reasons } = await checkWrite();
    expect(reasons).toHaveLength(4);
    expect(reasons[0]).toBe(`write: worker cluster worker-1: could not review create on trainingruntimes in namespace ${NS}: HTTP 401 Unauthorized: Unauthorized`);
  });

  it('a worker cluster that does not answer: ErrUnreachable without a definite answer, naming the cluster (the gate unknown, never refused)', async () => {
    const { w1, w2, checkWrite } = setup();
    w2.silent = true;
    const error = await checkWrite().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DispatchError);
    expect(error).toMatchObject({ type: 'ErrUnreachable', step: 1, evidence: { definite: false } });
    expect((error as DispatchError).reasons).toEqual([expect.stringMatching(/^worker cluster worker-2: review create trainingruntimes in namespace ml-jobs: no answer from the Kubernetes API \(ECONNREFUSED/)]);
    // The silent cluster is asked once; the other one all four.
    expect([w1.calls.length, w2.calls.length]).toEqual([4, 1]);
  });

  it('a denial on one worker cluster decides the gate even while another does not answer (only a definite answer decides, and this one does)', async () => {
    const { w1, w2, checkWrite } = setup();
    w1.denied.add('create trainingruntimes');
    w2.silent = true;
    const { reasons } = await checkWrite();
    expect(reasons).toEqual([
      `write: worker cluster worker-1: not allowed to create trainingruntimes in namespace ${NS}`,
      expect.stringMatching(/^write: worker cluster worker-2: review create trainingruntimes in namespace ml-jobs: no answer/),
    ]);
  });

  it('without worker clusters, only the manager is asked', async () => {
    const manager = new FakeCluster('manager');
    const env = { kube: manager.kube, requestTimeoutMs: 100 };
    manager.denied.add('patch trainjobs');
    expect(await new MockActivityEnvironment().run(gateActivities(env).checkWrite, { namespace: NS })).toEqual({ reasons: [`write: not allowed to patch trainjobs in namespace ${NS}`] });
  });
});
