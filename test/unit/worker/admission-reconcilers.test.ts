// The admission check controller's two reconcilers, each on its own (as Kueue's
// admissioncheck_reconciler.go and controller.go are): the AdmissionCheck reconciler touches only
// the AdmissionCheck, the Workload reconciler only the Workloads, and only for dispatch's controller.
import { describe, expect, it } from 'vitest';
import { LIST_PAGE_SIZE, ObjectCalls } from '../../../src/kube/objects.js';
import { reconcileAdmissionCheck } from '../../../src/worker/admission/check-reconciler.js';
import type { AdmissionCounters } from '../../../src/core/admission/counters.js';
import { AdmissionPass } from '../../../src/worker/admission/pass.js';
import { reconcileWorkloads } from '../../../src/worker/admission/workload-reconciler.js';
import type { AdmissionCheck, Workload } from '../../../src/model/kube.js';
import type { OperationConfig } from '../../../src/core/operations/observed.js';
import { NUDGE_AFTER_MS } from '../../../src/core/admission/multikueue-nudge.js';
import { CHECK, KUEUE_CONFIG, NS, trainJob } from '../core/operation-fixtures.js';
import { activeCondition, admissionCheck, apiError, checkState, cluster, type FakeApi } from './support/admission-cluster.js';

const AT = '2026-01-02T03:04:05Z';
const WORKLOADS = ['wl-a', 'wl-b', 'wl-c', 'wl-d', 'wl-e'];

function passOn(api: FakeApi, at = AT) {
  const counters: AdmissionCounters = { passes: 0, activeWrites: 0, readyWrites: 0, undoWrites: 0, nudgeWrites: 0, stale: 0, unanswered: 0, refused: 0 };
  const calls = new ObjectCalls(api.kube(), { requestTimeoutMs: 1000 });
  return { counters, pass: new AdmissionPass(calls, at, KUEUE_CONFIG.kueue.workloadVersion, counters, () => {}) };
}

const methods = (api: FakeApi) => api.calls.map((call) => call.method);

describe('the AdmissionCheck reconciler', () => {
  it("sets dispatch's AdmissionCheck Active, answers it as read, and reads or writes no Workload", async () => {
    const api = cluster();
    const { pass, counters } = passOn(api);
    const check = await reconcileAdmissionCheck(pass, KUEUE_CONFIG);
    expect(check?.metadata?.name).toBe(CHECK);
    expect(activeCondition(api)).toMatchObject({ status: 'True', reason: 'Ready', lastTransitionTime: AT });
    expect(methods(api)).toEqual(['getClusterCustomObject', 'patchClusterCustomObjectStatus']);
    expect(WORKLOADS.map((n) => checkState(api, n))).toEqual(['Pending', 'Pending', 'Pending', 'Pending', 'Pending']);
    expect(counters).toMatchObject({ activeWrites: 1, readyWrites: 0 });
    expect(pass.applied).toHaveLength(1);
  });

  it("leaves another controller's AdmissionCheck alone, and answers it so the Workload reconciler can tell", async () => {
    const api = cluster();
    api.put('admissionchecks', admissionCheck('kueue.x-k8s.io/provisioning-request'));
    const { pass } = passOn(api);
    const check = await reconcileAdmissionCheck(pass, KUEUE_CONFIG);
    expect(check?.spec?.controllerName).toBe('kueue.x-k8s.io/provisioning-request');
    expect(methods(api)).toEqual(['getClusterCustomObject']);
    expect(activeCondition(api)).toBeUndefined();
  });

  it('a refused read (404) answers none, counted and named as a problem', async () => {
    const api = cluster();
    api.objects.delete(`admissionchecks//${CHECK}`);
    const { pass, counters } = passOn(api);
    expect(await reconcileAdmissionCheck(pass, KUEUE_CONFIG)).toBeUndefined();
    expect(counters.refused).toBe(1);
    expect(pass.problems).toEqual([expect.stringContaining(`reading AdmissionCheck ${CHECK}: HTTP 404`)]);
  });
});

describe('the Workload reconciler', () => {
  const dispatchCheck = () => admissionCheck() as AdmissionCheck;

  it("for dispatch's AdmissionCheck, marks the Workloads whose TrainJob may run, and never touches the AdmissionCheck", async () => {
    const api = cluster();
    const { pass, counters } = passOn(api);
    await reconcileWorkloads(pass, dispatchCheck(), { config: KUEUE_CONFIG });
    expect(WORKLOADS.map((n) => checkState(api, n))).toEqual(['Ready', 'Ready', 'Pending', 'Pending', 'Pending']);
    expect(methods(api).filter((m) => m.includes('Cluster'))).toEqual([]);
    expect(activeCondition(api)).toBeUndefined();
    expect(counters).toMatchObject({ readyWrites: 2, activeWrites: 0 });
    expect(pass.problems).toEqual([]);
  });

  it('MultiKueue: writes Ready again on the Workloads MultiKueue left unnominated once NUDGE_AFTER_MS has passed, and only then; never on one cluster', async () => {
    const multiKueue: OperationConfig = { ...KUEUE_CONFIG, kueue: { ...KUEUE_CONFIG.kueue, multiKueue: { clusters: [{ name: 'worker-1', kubeconfig: '/w1' }] } } };
    const api = cluster();
    await reconcileWorkloads(passOn(api).pass, dispatchCheck(), { config: multiKueue });
    // MultiKueue's check, Pending, with no cluster nominated (its reconcile came while the worker was disconnected).
    for (const name of ['wl-a', 'wl-b']) {
      const wl = api.get('workloads', NS, name) as Workload;
      api.put('workloads', { ...wl, status: { ...wl.status, admissionChecks: [{ name: 'multikueue', state: 'Pending', message: '', lastTransitionTime: AT }, ...(wl.status?.admissionChecks ?? [])] } });
    }
    const soon = passOn(api, new Date(Date.parse(AT) + NUDGE_AFTER_MS - 1).toISOString());
    await reconcileWorkloads(soon.pass, dispatchCheck(), { config: multiKueue });
    expect(soon.counters).toMatchObject({ nudgeWrites: 0, readyWrites: 0 });
    const oneCluster = passOn(api, new Date(Date.parse(AT) + NUDGE_AFTER_MS).toISOString());
    await reconcileWorkloads(oneCluster.pass, dispatchCheck(), { config: KUEUE_CONFIG });
    expect(oneCluster.counters.nudgeWrites).toBe(0);
    const later = new Date(Date.parse(AT) + NUDGE_AFTER_MS).toISOString();
    const nudge = passOn(api, later);
    await reconcileWorkloads(nudge.pass, dispatchCheck(), { config: multiKueue });
    expect(nudge.counters).toMatchObject({ nudgeWrites: 2, readyWrites: 0, undoWrites: 0 });
    for (const name of ['wl-a', 'wl-b']) {
      const entries = (api.get('workloads', NS, name) as Workload).status?.admissionChecks ?? [];
      expect(entries).toEqual([
        { name: 'multikueue', state: 'Pending', message: '', lastTransitionTime: AT },
        expect.objectContaining({ name: CHECK, state: 'Ready', lastTransitionTime: later, message: expect.stringContaining('written again') }),
      ]);
    }
    expect(WORKLOADS.map((n) => checkState(api, n))).toEqual(['Ready', 'Ready', 'Pending', 'Pending', 'Pending']);
  });

  it('run again on what it wrote, it writes nothing: it keeps no memory, it reads', async () => {
    const api = cluster();
    await reconcileWorkloads(passOn(api).pass, dispatchCheck(), { config: KUEUE_CONFIG });
    const again = passOn(api);
    await reconcileWorkloads(again.pass, dispatchCheck(), { config: KUEUE_CONFIG });
    expect(again.pass.applied).toEqual([]);
    expect(again.counters).toMatchObject({ readyWrites: 0, stale: 0 });
  });

  it("for another controller's AdmissionCheck, makes no call and names why", async () => {
    const api = cluster();
    const { pass } = passOn(api);
    await reconcileWorkloads(pass, admissionCheck('kueue.x-k8s.io/provisioning-request') as AdmissionCheck, { config: KUEUE_CONFIG });
    expect(api.calls).toEqual([]);
    expect(pass.problems).toEqual([expect.stringContaining('no Workload is marked')]);
  });

  // Listed whole, 10,000 dispatch TrainJobs are ~200 MB of parsed JSON, past the worker's heap.
  it('with no watch-fed copy, lists in pages of LIST_PAGE_SIZE and decides from every page', async () => {
    const api = cluster();
    for (let i = 0; i < LIST_PAGE_SIZE + 10; i++) {
      const other = trainJob({ uid: `other-${i}` });
      api.put('trainjobs', { ...other, metadata: { ...other.metadata, name: `other-${String(i).padStart(4, '0')}` } });
    }
    const { pass, counters } = passOn(api);
    await reconcileWorkloads(pass, dispatchCheck(), { config: KUEUE_CONFIG });
    const trainJobLists = api.calls.filter((c) => c.method === 'listNamespacedCustomObject' && c.params.plural === 'trainjobs');
    expect(trainJobLists.map((c) => [c.params.limit, c.params._continue])).toEqual([[LIST_PAGE_SIZE, undefined], [LIST_PAGE_SIZE, String(LIST_PAGE_SIZE)]]);
    expect(WORKLOADS.map((n) => checkState(api, n))).toEqual(['Ready', 'Ready', 'Pending', 'Pending', 'Pending']);
    expect(counters).toMatchObject({ readyWrites: 2 });
  });

  it('a refused list is counted and named; nothing is written from half the picture', async () => {
    const api = cluster();
    api.fault = (method, p) => (method === 'listNamespacedCustomObject' && p.plural === 'trainjobs' ? apiError(403, 'forbidden', 'Forbidden') : undefined);
    const { pass, counters } = passOn(api);
    await reconcileWorkloads(pass, dispatchCheck(), { config: KUEUE_CONFIG });
    expect(counters).toMatchObject({ refused: 1, readyWrites: 0 });
    expect(pass.problems).toEqual([expect.stringContaining('listing the TrainJobs of')]);
    expect(WORKLOADS.map((n) => checkState(api, n))).toEqual(['Pending', 'Pending', 'Pending', 'Pending', 'Pending']);
  });
});
