// Hold and Release in Kueue mode while the job's ClusterQueue is inactive (its admission check not
// Active: no worker runs its controller). Found by the chaos run's first Kueue lifecycles (a harness
// fault left the check inactive): right after the Hold, Kueue's TrainJob controller retries its own
// update of the inadmissible Workload on conflicts for a second or two, the Workload changes every
// few tens of milliseconds, and a Hold or a Release that read and patched it ten times back to back
// lost each race and was refused (docs/reliability.md; with the 500 ms pause after a stale write set
// to 0 this test fails so, at the Hold or at the Release). Both must land, and leave the job Queued.
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kueue } from '../../../src/model/constants.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, kubeConfig, uniqueName, type TestNamespace } from '../support/kube.js';
import { createOneJobQueue, REAL_KUEUE_CONFIG, workloadOf } from '../support/operations.js';
import { refOf } from './support.js';

const api = () => kubeConfig().makeApiClient(CustomObjectsApi);
const kueue = { group: Kueue.group, version: 'v1beta2' };
const apiVersion = `${Kueue.group}/v1beta2`;

let ns: TestNamespace;
let h: DispatchHarness;
let clusterQueue: string;
let admissionCheck: string;
const localQueue = 'inactive';

beforeAll(async () => {
  ns = await freshNamespace('lc-inactive');
  clusterQueue = uniqueName('lc-inactive');
  admissionCheck = uniqueName('idle-check');
  // dispatch's kind of check, which no worker here activates (the harness runs no controller).
  await api().createClusterCustomObject({
    ...kueue,
    plural: 'admissionchecks',
    body: { apiVersion, kind: 'AdmissionCheck', metadata: { name: admissionCheck }, spec: { controllerName: 'dispatch.phpboyscout.uk/admission-check' } },
  });
  await createOneJobQueue(kubeConfig(), { namespace: ns.name, clusterQueue, localQueue, admissionCheck });
  h = await startDispatch({
    namespace: ns.name,
    // CallBound 60 s: the Hold's and Release's writes race Kueue's hot loop, and on a loaded machine
    // every read and patch between the pauses after a stale write may take seconds; the bound is
    // for the API server's answers, not for how long the race lasts.
    config: {
      ...REAL_KUEUE_CONFIG,
      kueue: { ...REAL_KUEUE_CONFIG.kueue, queue: localQueue, admissionCheck },
      timeouts: { ...REAL_KUEUE_CONFIG.timeouts, call: '60s' },
    },
    admissionController: false,
  });
});
afterAll(async () => {
  await h?.close();
  await ns?.dispose();
  await api().deleteClusterCustomObject({ ...kueue, plural: 'clusterqueues', name: clusterQueue }).catch(() => undefined);
  await api().deleteClusterCustomObject({ ...kueue, plural: 'admissionchecks', name: admissionCheck }).catch(() => undefined);
});

describe('Kueue mode, the ClusterQueue inactive', () => {
  it('Open, Hold and Release back to back: the Release lands while Kueue keeps changing the Workload; the job stays Queued; Stop removes it', async () => {
    const ref = refOf(await h.client.startTrainJob(startRequest()));
    expect(await h.client.open(ref)).toMatchObject({ ref, phase: 'Queued' });
    expect(await h.client.hold(ref)).toMatchObject({ ref, phase: 'Held', held: true });
    expect(await h.client.release(ref)).toMatchObject({ ref, phase: 'Queued', held: false });
    expect((await workloadOf(h.kube, ns.name, ref.uid))?.spec?.active).toBe(true);
    expect(await h.client.stop(ref)).toMatchObject({ phase: 'Absent' });
  });
});
