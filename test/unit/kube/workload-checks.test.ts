// WorkloadChecks (seed 000 step 9, docs/contract.md §7): the checks of many waiting Starts share one list,
// and each Start gets what a list of its own Workload alone would have answered.
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { KubeClients } from '../../../src/kube/clients.js';
import { BatchedLists } from '../../../src/kube/batched-lists.js';
import { MAX_UIDS, WorkloadChecks, workloadsOfSelector } from '../../../src/kube/workload-checks.js';
import { Labels } from '../../../src/model/constants.js';

interface ListCall {
  namespace: string;
  version: string;
  labelSelector: string;
}

/** A Workload as Kueue makes one: labelled with the TrainJob's UID and owned by it (unless `owner` says otherwise). */
const workload = (name: string, uid: string, more: { owner?: string; deleting?: boolean; finished?: boolean } = {}) => ({
  metadata: {
    name,
    labels: { [Labels.kueueJobUid]: uid },
    ownerReferences: [{ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', name: 'tj', uid: more.owner ?? uid, controller: true }],
    ...(more.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  ...(more.finished ? { status: { conditions: [{ type: 'Finished', status: 'True' }] } } : {}),
});

/** A KubeClients whose Workload lists answer from `answer`, recording each call. */
function fakeKube(answer: (call: ListCall) => Promise<unknown>): { kube: KubeClients; calls: ListCall[] } {
  const calls: ListCall[] = [];
  const custom = {
    listNamespacedCustomObject(params: ListCall) {
      calls.push({
        namespace: params.namespace,
        version: params.version,
        labelSelector: params.labelSelector,
      });
      return answer(params);
    },
  };
  return { kube: { custom } as unknown as KubeClients, calls };
}

/** The UIDs a set-based selector names. */
const uidsOf = (selector: string) => selector.slice(selector.indexOf('(') + 1, -1).split(',');

describe('WorkloadChecks', () => {
  it('checks made within one window share one list, whose selector names every UID once', async () => {
    const { kube, calls } = fakeKube(async (call) => ({
      items: uidsOf(call.labelSelector)
        .filter((uid) => uid !== 'c')
        .map((uid) => workload(`wl-${uid}`, uid)),
    }));
    const checks = new WorkloadChecks(new BatchedLists(kube, 1000));
    const answers = await Promise.all(['a', 'b', 'c', 'a'].map((uid) => checks.check('ml', 'v1beta2', uid)));
    expect(calls).toEqual([
      { namespace: 'ml', version: 'v1beta2', labelSelector: workloadsOfSelector(['a', 'b', 'c']) },
    ]);
    expect(calls[0]!.labelSelector).toBe(`${Labels.kueueJobUid} in (a,b,c)`);
    expect(answers.map((a) => (a.answered === 'ok' ? a.value?.metadata?.name : a))).toEqual([
      'wl-a',
      'wl-b',
      undefined,
      'wl-a',
    ]);
  });

  it("a Start gets its TrainJob's own Workload: owned by it, not being deleted, not Finished, whatever the list's order", async () => {
    const { kube } = fakeKube(async () => ({
      items: [
        workload('a-0-stale', 'a', { finished: true }),
        workload('a-1-going', 'a', { deleting: true }),
        workload('a-2-foreign', 'a', { owner: 'someone-else' }),
        workload('other', 'b'),
        workload('a-3-own', 'a'),
      ],
    }));
    const answer = await new WorkloadChecks(new BatchedLists(kube, 1000)).check('ml', 'v1beta2', 'a');
    expect(answer).toMatchObject({ answered: 'ok', value: { metadata: { name: 'a-3-own' } } });
  });

  it('a Workload labelled with the UID but owned by another object is not the TrainJob\'s: none', async () => {
    const { kube } = fakeKube(async () => ({ items: [workload('a-foreign', 'a', { owner: 'x' })] }));
    const answer = await new WorkloadChecks(new BatchedLists(kube, 1000)).check('ml', 'v1beta2', 'a');
    expect(answer).toEqual({ answered: 'ok', value: undefined });
  });

  it(`splits a window's UIDs into lists of at most ${MAX_UIDS}, and keeps namespaces and versions apart`, async () => {
    const { kube, calls } = fakeKube(async () => ({ items: [] }));
    const checks = new WorkloadChecks(new BatchedLists(kube, 1000));
    const uids = Array.from({ length: 2 * MAX_UIDS + 1 }, (_, i) => `u${i}`);
    await Promise.all([
      ...uids.map((uid) => checks.check('ml', 'v1beta2', uid)),
      checks.check('other', 'v1beta2', 'x'),
      checks.check('ml', 'v1beta1', 'y'),
    ]);
    const ml2 = calls.filter((c) => c.namespace === 'ml' && c.version === 'v1beta2');
    expect(ml2.map((c) => uidsOf(c.labelSelector).length)).toEqual([MAX_UIDS, MAX_UIDS, 1]);
    expect(ml2.flatMap((c) => uidsOf(c.labelSelector)).sort()).toEqual([...uids].sort());
    expect(calls.filter((c) => c.namespace === 'other' || c.version === 'v1beta1')).toHaveLength(2);
  });

  it("a definite refusal is every check's answer; an unanswered list rejects every check", async () => {
    const refused = fakeKube(async () =>
      Promise.reject(new ApiException(403, 'Forbidden', { reason: 'Forbidden', message: 'no' }, {})),
    );
    const answers = await Promise.all(
      ['a', 'b'].map((uid) => new WorkloadChecks(new BatchedLists(refused.kube, 1000)).check('ml', 'v1beta2', uid)),
    );
    for (const answer of answers)
      expect(answer).toMatchObject({ answered: 'definite', status: 403, reason: 'Forbidden' });

    const unanswered = fakeKube(async () =>
      Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    );
    const checks = new WorkloadChecks(new BatchedLists(unanswered.kube, 1000));
    const results = await Promise.allSettled(['a', 'b'].map((uid) => checks.check('ml', 'v1beta2', uid)));
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect(String((result as PromiseRejectedResult).reason)).toContain('no answer from the Kubernetes API');
    }
  });

  it("a cancelled check rejects at once, and the others' list still answers them", async () => {
    const { kube, calls } = fakeKube(async (call) => ({
      items: uidsOf(call.labelSelector).map((uid) => workload(uid, uid)),
    }));
    const checks = new WorkloadChecks(new BatchedLists(kube, 1000));
    const cancel = new AbortController();
    const cancelled = checks.check('ml', 'v1beta2', 'a', cancel.signal);
    const other = checks.check('ml', 'v1beta2', 'b');
    cancel.abort(new Error('the Start was cancelled'));
    await expect(cancelled).rejects.toThrow('the Start was cancelled');
    await expect(other).resolves.toMatchObject({ answered: 'ok', value: { metadata: { name: 'b' } } });
    expect(calls).toHaveLength(1);
    await expect(checks.check('ml', 'v1beta2', 'c', cancel.signal)).rejects.toThrow(
      'the Start was cancelled',
    );
  });
});
