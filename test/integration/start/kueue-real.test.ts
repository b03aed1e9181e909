// StartTrainJob in Kueue mode on the real Kueue v0.19.2 (docs/start.md step 9; docs/contract.md §3, §4a): its
// webhook suspends the TrainJob and appends its own runtime patch, its controller makes the
// Workload with dispatch's gate copied onto it and the ClusterQueue's admission check listed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUEUE_SAMPLE_CHECK, KUEUE_SAMPLE_QUEUE } from '../../../dev/harness/samples.js';
import { Annotations, Dispatch, Kueue, Labels, Trainer } from '../../../src/model/constants.js';
import type { TrainJob } from '../../../src/model/kube.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshKueueNamespace, type TestNamespace } from '../support/kube.js';
import { REAL_KUEUE_CONFIG, workloadOf } from '../support/operations.js';

const KUEUE_CONFIG = REAL_KUEUE_CONFIG;

describe('StartTrainJob, Kueue mode, on the real Kueue', () => {
  let ns: TestNamespace;
  let h: DispatchHarness;
  beforeAll(async () => {
    ns = await freshKueueNamespace('kueue-real');
    h = await startDispatch({ namespace: ns.name, config: KUEUE_CONFIG });
  });
  afterAll(async () => {
    await h?.close();
    await ns?.dispose();
  });

  it("step 9: Kueue's Workload carries dispatch's gate and lists the check, so Start succeeds; what Kueue's webhook added passed read-back", async () => {
    const request = startRequest();
    const handle = await h.client.submit(request);
    const t0 = Date.now();
    const result = await handle.result();
    const ms = Date.now() - t0;
    expect(result.mode).toBe('kueue');

    const trainJob = (await h.kube.custom.getNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      namespace: ns.name,
      plural: Trainer.trainJobPlural,
      name: result.name,
    })) as TrainJob;
    expect(trainJob.metadata.labels?.[Labels.kueueQueueName]).toBe(KUEUE_SAMPLE_QUEUE);
    expect(trainJob.metadata.annotations?.[Annotations.kueueAdmissionGatedBy]).toBe(Dispatch.defaultGate);
    // Kueue's webhook: suspended, and its own runtime patch after ours.
    expect(trainJob.spec.suspend).toBe(true);
    expect(trainJob.spec.runtimePatches.map((p) => p.manager)).toEqual([Dispatch.patchManager, Kueue.managerName]);
    // Read-back (step 8) compared the object with those additions.
    // Steps 7 and 8 are one local activity (patch start-folded-calls): its answer holds the read.
    const read = (h.calls.succeeded(handle.workflowId, 'setOwnerThenReadBack').result as { read: TrainJob }).read;
    expect(read.spec.runtimePatches.map((p) => p.manager)).toContain(Kueue.managerName);

    const workload = await workloadOf(h.kube, ns.name, result.uid);
    expect(workload?.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: Trainer.trainJobKind, uid: result.uid })]);
    expect(workload?.metadata?.annotations?.[Annotations.kueueAdmissionGatedBy]).toBe(Dispatch.defaultGate);
    expect(workload?.status?.admissionChecks?.map((c) => c.name)).toContain(KUEUE_SAMPLE_CHECK);
    expect(h.calls.succeeded(handle.workflowId, 'waitForWorkload').result).toMatchObject({ workload: workload?.metadata?.name });
    const events = (await handle.fetchHistory()).events ?? [];
    console.log(`[kueue-real] Start on the real Kueue: ${ms} ms, ${events.length} history events`);
  });

  it("a Start retried after its earlier run succeeded (the answer lost): the same TrainJob and Workload; once opened, refused and left as it is", async () => {
    const request = startRequest();
    const first = await h.client.startTrainJob(request);
    const workload = await workloadOf(h.kube, ns.name, first.uid);
    // A new run of the closed id: step 5 reuses the copy its TrainJob owns, 6 adopts, 8 and 9 pass.
    expect(await h.client.startTrainJob(request)).toEqual(first);
    expect((await workloadOf(h.kube, ns.name, first.uid))?.metadata?.uid).toBe(workload?.metadata?.uid);

    await h.client.open({ namespace: ns.name, name: first.name, uid: first.uid });
    const error = await h.client.startTrainJob(request).then(
      () => expect.unreachable('a retried Start of an opened TrainJob succeeded'),
      (e: unknown) => e as { type: string; step: number; reasons: string[] },
    );
    expect(error).toMatchObject({ type: 'ErrRejected', step: 5 });
    expect(error.reasons[1]).toContain(`was opened or changed since it was started, so a retried Start does not adopt it: metadata.annotations["${Annotations.kueueAdmissionGatedBy}"]: wrote "${Dispatch.defaultGate}", read absent`);
    const trainJob = (await h.kube.custom.getNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      namespace: ns.name,
      plural: Trainer.trainJobPlural,
      name: first.name,
    })) as TrainJob;
    expect(trainJob.metadata.uid).toBe(first.uid);
    expect(trainJob.metadata.deletionTimestamp).toBeUndefined();
  });

  it('step 9: a queue with no LocalQueue gets a Workload without the check: ErrRejected naming it, the TrainJob stopped', async () => {
    const other = await startDispatch({ namespace: ns.name, config: { ...KUEUE_CONFIG, kueue: { ...KUEUE_CONFIG.kueue, queue: 'no-such-queue' }, timeouts: { workload: '3s', call: '10s' } } });
    try {
      const error = await other.client.startTrainJob(startRequest()).then(
        () => undefined,
        (e: unknown) => e as { type?: string; step?: number; reasons?: string[] },
      );
      expect(error?.type).toBe('ErrRejected');
      expect(error?.step).toBe(9);
      expect(error?.reasons?.join('\n')).toContain('status.admissionChecks');
    } finally {
      await other.close();
    }
  });
});
