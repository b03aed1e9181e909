// dispatch's admission check controller on the real Kueue (docs/contract.md §9): two workers in
// Kueue mode run it at once on one namespace. It keeps the AdmissionCheck Active (the stack no
// longer does), every opened Start's Workload has its check set Ready exactly once between them and
// the TrainJob runs to Complete, and a held TrainJob's Workload is never marked, whether Hold made
// it inactive or only the held annotation is there while Kueue reserves its quota.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUEUE_SAMPLE_CHECK } from '../../../dev/harness/samples.js';
import { Kueue, Trainer } from '../../../src/model/constants.js';
import type { Workload } from '../../../src/model/kube.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import { OperationAnnotations, OperationAnnotationValues } from '../../../src/model/constants.js';
import type { StartResult } from '../../../src/model/results.js';
import type { AdmissionController } from '../../../src/worker/admission-controller.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshKueueNamespace, type TestNamespace } from '../support/kube.js';
import { finished, REAL_KUEUE_CONFIG, until, workloadOf } from '../support/operations.js';

/** One node of one GPU: the ClusterQueue's 16 GPUs admit several at once. */
const SMALL = { spec: { nodes: 1, gpusPerNode: 1 } };
const STARTS = 4;

const refOf = (r: StartResult): TrainJobRef => ({ namespace: r.namespace, name: r.name, uid: r.uid });
const checkState = (w: Workload | undefined) => w?.status?.admissionChecks?.find((c) => c.name === KUEUE_SAMPLE_CHECK)?.state;
const isTrue = (w: Workload | undefined, type: string) =>
  ((w?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

describe('the admission check controller, two workers at once, on the real Kueue', () => {
  let ns: TestNamespace;
  let a: DispatchHarness;
  let b: DispatchHarness;
  const controllers = () => [a, b].map((h) => h.worker.admissionController as AdmissionController);
  const readyWrites = () => controllers().reduce((sum, c) => sum + c.counters.readyWrites, 0);
  /** Waits until each controller has made `n` more passes. */
  const passes = async (n: number) => {
    const targets = controllers().map((c) => c.counters.passes + n);
    await until(`${n} more passes of both controllers`, 30_000, async () =>
      controllers().every((c, i) => c.counters.passes >= targets[i]!) ? true : undefined,
    );
  };

  beforeAll(async () => {
    ns = await freshKueueNamespace('admission');
    // Two workers of the same namespace (each on its own task queue): two controllers.
    [a, b] = await Promise.all([
      startDispatch({ namespace: ns.name, config: REAL_KUEUE_CONFIG }),
      startDispatch({ namespace: ns.name, config: REAL_KUEUE_CONFIG }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await ns?.dispose();
  });

  it('keeps the AdmissionCheck Active; each opened Start has its check set Ready once, and runs to Complete', async () => {
    expect(controllers().every((c) => c !== undefined)).toBe(true);
    const before = readyWrites();
    const started = await Promise.all(Array.from({ length: STARTS }, () => a.client.startTrainJob(startRequest(SMALL))));
    await Promise.all(started.map((r) => a.client.open(refOf(r))));
    for (const r of started) expect(await finished(a.kube, ns.name, r.name)).toBe('Complete');

    const check = (await a.kube.custom.getClusterCustomObject({
      group: Kueue.group,
      version: 'v1beta2',
      plural: 'admissionchecks',
      name: KUEUE_SAMPLE_CHECK,
    })) as { status?: { conditions?: { type: string; status: string; reason: string }[] } };
    expect(check.status?.conditions?.find((c) => c.type === 'Active')).toMatchObject({ status: 'True', reason: 'Ready' });

    const workloads = await Promise.all(started.map((r) => workloadOf(a.kube, ns.name, r.uid)));
    expect(workloads.map(checkState)).toEqual(started.map(() => 'Ready'));
    expect(workloads.every((w) => isTrue(w, 'Admitted') || isTrue(w, 'Finished'))).toBe(true);
    // Once each, between the two: a second write of the same entry fails its test and is stale.
    await passes(2);
    expect(readyWrites() - before).toBe(STARTS);
    const [one, two] = controllers().map((c) => ({ ...c.counters }));
    expect(one!.refused + two!.refused).toBe(0);
    console.log(`[admission] ${STARTS} Starts: Ready writes ${one!.readyWrites} + ${two!.readyWrites}, stale ${one!.stale} + ${two!.stale}; Active writes ${one!.activeWrites} + ${two!.activeWrites}`);
  });

  it("a held TrainJob's Workload is never marked Ready: inactive after Hold, or active and reserving quota with only the held annotation", async () => {
    const before = readyWrites();
    // Hold, then Open: the Workload is inactive, so Kueue reserves no quota for it.
    const held = await a.client.startTrainJob(startRequest(SMALL));
    await a.client.hold(refOf(held));
    await a.client.open(refOf(held));
    // Only the annotation (as between the two writes of a Hold), then Open: Kueue reserves quota.
    const marked = await a.client.startTrainJob(startRequest(SMALL));
    await a.kube.custom.patchNamespacedCustomObject(
      {
        group: Trainer.group,
        version: Trainer.version,
        plural: Trainer.trainJobPlural,
        namespace: ns.name,
        name: marked.name,
        body: { metadata: { annotations: { [OperationAnnotations.held]: OperationAnnotationValues.held } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await a.client.open(refOf(marked));
    try {
      const reserved = await until('the held-marked Workload to reserve quota', 60_000, async () => {
        const w = await workloadOf(a.kube, ns.name, marked.uid);
        return isTrue(w, 'QuotaReserved') ? w : undefined;
      });
      expect(checkState(reserved)).toBe('Pending');
      await passes(3);
      const [inactive, annotated] = await Promise.all([workloadOf(a.kube, ns.name, held.uid), workloadOf(a.kube, ns.name, marked.uid)]);
      expect(inactive?.spec?.active).toBe(false);
      expect(isTrue(inactive, 'QuotaReserved')).toBe(false);
      expect([checkState(inactive), checkState(annotated)]).toEqual(['Pending', 'Pending']);
      expect(isTrue(annotated, 'Admitted')).toBe(false);
      expect(readyWrites()).toBe(before);
    } finally {
      // Give back the quota the annotated one holds.
      await Promise.all([a.client.stop(refOf(held)), a.client.stop(refOf(marked))]);
    }
  });
});
