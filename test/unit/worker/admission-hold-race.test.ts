// A Hold racing the admission check controller (docs/contract.md §9): the controller never readies a
// held TrainJob. Hold's first write (the `held` annotation) is made to land at each point of a pass
// in turn, on the in-memory API server (support/admission-cluster.ts), and optionally Kueue admits
// the Workload the instant its check is Ready. Whatever the point: a Hold that landed before the
// controller read the TrainJob leaves the check unwritten, and a Ready written while the TrainJob was
// held does not stand: it is taken back to Pending, or to Retry (so Kueue evicts it) once admitted.
import { describe, expect, it } from 'vitest';
import { CheckStates, OperationAnnotations, OperationAnnotationValues } from '../../../src/model/constants.js';
import type { JsonPatchOp, KubeObject, TrainJob, Workload } from '../../../src/model/kube.js';
import { createAdmissionController } from '../../../src/worker/admission-controller.js';
import { CHECK, condition, KUEUE_CONFIG, NS } from '../core/operation-fixtures.js';
import { apiError, checkState, cluster, NOW, RESERVED, type FakeApi, type Method, type Params } from './support/admission-cluster.js';

const ADMITTED = condition('Admitted', 'True', 'Admitted', 'The workload is admitted');

const controller = (api: FakeApi, options: { lists?: Parameters<typeof createAdmissionController>[0]['lists'] } = {}) =>
  createAdmissionController({ kube: api.kube(), config: KUEUE_CONFIG, requestTimeoutMs: 1000, log: () => {}, now: () => NOW, ...options });

/** Hold's first write, as planHold makes it: the `held` annotation on the TrainJob. */
function holdMark(api: FakeApi, name: string): void {
  api.edit('trainjobs', NS, name, (o) => ({
    ...o,
    metadata: { ...o.metadata, annotations: { ...o.metadata?.annotations, [OperationAnnotations.held]: OperationAnnotationValues.held } },
  }));
}

/** Kueue's admission of a Workload whose checks are all Ready: the Admitted condition. */
function kueueAdmits(api: FakeApi, name: string): void {
  api.edit('workloads', NS, name, (o) => {
    const w = o as Workload;
    return { ...w, status: { ...w.status, conditions: [...((w.status?.conditions as unknown[]) ?? []), ADMITTED] } } as KubeObject;
  });
}

const isHeld = (api: FakeApi, name: string) =>
  (api.get('trainjobs', NS, name) as TrainJob).metadata.annotations?.[OperationAnnotations.held] === OperationAnnotationValues.held;

/** Whether a call is a write that sets dispatch's check Ready on the Workload. */
const setsReady = (method: Method, p: Params, name: string) =>
  method === 'patchNamespacedCustomObjectStatus' &&
  p.plural === 'workloads' &&
  p.name === name &&
  (p.body ?? []).some((op: JsonPatchOp) => op.op === 'replace' && (op.value as { state?: string } | undefined)?.state === CheckStates.ready);

describe('a Hold racing the admission check controller', () => {
  it('a Hold whose first write lands between the read of the TrainJob and the Ready write: the Ready does not stand', async () => {
    const api = cluster();
    api.beforeServe = (method, p) => {
      if (setsReady(method, p, 'wl-a') && !isHeld(api, 'job-a')) holdMark(api, 'job-a');
    };
    const c = controller(api);
    expect((await c.pass()).clean).toBe(true);
    expect(isHeld(api, 'job-a')).toBe(true);
    expect(checkState(api, 'wl-a')).toBe(CheckStates.pending);
    expect(checkState(api, 'wl-b')).toBe(CheckStates.ready);
  });

  it('the same, with Kueue admitting the Workload before the controller can take the Ready back: Retry, so Kueue evicts it', async () => {
    const api = cluster();
    api.beforeServe = (method, p) => {
      if (setsReady(method, p, 'wl-a') && !isHeld(api, 'job-a')) holdMark(api, 'job-a');
    };
    api.afterWrite = (p, written) => {
      if (p.plural === 'workloads' && p.name === 'wl-a' && checkState(api, 'wl-a') === CheckStates.ready && written) kueueAdmits(api, 'wl-a');
    };
    const c = controller(api);
    expect((await c.pass()).clean).toBe(true);
    expect(checkState(api, 'wl-a')).toBe(CheckStates.retry);
    expect(checkState(api, 'wl-b')).toBe(CheckStates.ready);
  });

  it('Kueue admitting first and the Workload read again refused (403): a problem of the pass; the next pass undoes it (Retry)', async () => {
    const api = cluster();
    api.beforeServe = (method, p) => {
      if (setsReady(method, p, 'wl-a') && !isHeld(api, 'job-a')) holdMark(api, 'job-a');
    };
    api.afterWrite = (p) => {
      if (p.plural === 'workloads' && p.name === 'wl-a' && checkState(api, 'wl-a') === CheckStates.ready) kueueAdmits(api, 'wl-a');
    };
    api.fault = (method, p) => (method === 'getNamespacedCustomObject' && p.plural === 'workloads' ? apiError(403, 'forbidden', 'Forbidden') : undefined);
    const c = controller(api);
    expect((await c.pass()).clean).toBe(false);
    expect(c.counters).toMatchObject({ refused: 1, undoWrites: 0 });
    expect(checkState(api, 'wl-a')).toBe(CheckStates.ready);
    api.fault = undefined;
    expect((await c.pass()).clean).toBe(true);
    expect(checkState(api, 'wl-a')).toBe(CheckStates.retry);
  });

  it("a Hold the watch-fed copy has not heard of yet (it landed before the Workload's quota reservation): no Ready write at all", async () => {
    const api = cluster();
    // The copy as the feeds hold it: the TrainJob not yet held.
    const behind = structuredClone([...api.objects.entries()]);
    holdMark(api, 'job-a');
    const lists = {
      snapshot: (kind: { plural: string }, namespace: string, label: string) =>
        behind.filter(([key]) => key.startsWith(`${kind.plural}/${namespace}/`)).map(([, o]) => o).filter((o) => o.metadata?.labels?.[label] !== undefined),
      changed: async () => {},
    };
    const c = controller(api, { lists });
    expect((await c.pass()).clean).toBe(true);
    const readyWrites = api.calls.filter((call) => setsReady(call.method, call.params, 'wl-a'));
    expect(readyWrites).toEqual([]);
    expect(checkState(api, 'wl-a')).toBe(CheckStates.pending);
    expect(checkState(api, 'wl-b')).toBe(CheckStates.ready);
  });

  it('a Ready left standing on a held TrainJob (the controller stopped between its write and its check) is taken back by the next pass', async () => {
    const api = cluster();
    // wl-c's TrainJob is held: Ready and admitted (Retry), Ready and not yet admitted (Pending).
    api.edit('workloads', NS, 'wl-c', (o) => readyAgain(o, [RESERVED, ADMITTED]));
    holdMark(api, 'job-a');
    api.edit('workloads', NS, 'wl-a', (o) => readyAgain(o, [RESERVED]));
    const c = controller(api);
    expect((await c.pass()).clean).toBe(true);
    expect(checkState(api, 'wl-c')).toBe(CheckStates.retry);
    expect(checkState(api, 'wl-a')).toBe(CheckStates.pending);
    // An inactive Workload (the Hold's second write came first) is Kueue's to evict: left alone.
    const inactive = cluster();
    inactive.edit('workloads', NS, 'wl-c', (o) => ({ ...readyAgain(o, [RESERVED, ADMITTED]), spec: { ...(o as Workload).spec, active: false } }) as KubeObject);
    await controller(inactive).pass();
    expect(checkState(inactive, 'wl-c')).toBe(CheckStates.ready);
  });

  it('the Hold landing at every point of a pass, Kueue admitting at once or not: a Ready written on a held TrainJob never stands, and a Hold read before the write prevents it', async () => {
    // The calls of a pass with no Hold, counted once.
    const calm = cluster();
    await controller(calm).pass();
    const points = calm.calls.length;
    expect(points).toBeGreaterThan(4);
    for (const kueueFirst of [false, true]) {
      // Both races must come up among the points: a Hold read before the write, and one after the read.
      const seen = { prevented: 0, undone: 0 };
      for (let at = 0; at <= points; at++) {
        const api = cluster();
        let served = 0;
        let heldWhenReadied: boolean | undefined;
        let trainJobReadsBeforeHold = 0;
        api.beforeServe = (method, p) => {
          if (served++ === at) holdMark(api, 'job-a');
          if (method === 'getNamespacedCustomObject' && p.name === 'job-a' && !isHeld(api, 'job-a')) trainJobReadsBeforeHold++;
        };
        api.afterWrite = (p) => {
          if (p.plural !== 'workloads' || p.name !== 'wl-a' || checkState(api, 'wl-a') !== CheckStates.ready) return;
          heldWhenReadied = isHeld(api, 'job-a');
          if (kueueFirst) kueueAdmits(api, 'wl-a');
        };
        const c = controller(api);
        expect((await c.pass()).clean).toBe(true);
        const what = `Hold before call ${at} of ${points}, Kueue ${kueueFirst ? 'admitting at once' : 'not yet admitting'}`;
        if (heldWhenReadied === true) {
          expect(checkState(api, 'wl-a'), what).toBe(kueueFirst ? CheckStates.retry : CheckStates.pending);
          seen.undone++;
        }
        if (heldWhenReadied === undefined && isHeld(api, 'job-a')) seen.prevented++;
        // No read of the TrainJob before the Hold: the controller never wrote Ready.
        if (trainJobReadsBeforeHold === 0 && at < points) expect(heldWhenReadied, what).toBeUndefined();
        expect(checkState(api, 'wl-b'), what).toBe(CheckStates.ready);
      }
      expect(seen.prevented).toBeGreaterThan(0);
      expect(seen.undone).toBeGreaterThan(0);
    }
  });
});

/** The Workload with dispatch's check Ready and these conditions. */
function readyAgain(o: KubeObject, conditions: unknown[]): KubeObject {
  const w = o as Workload;
  return {
    ...w,
    status: {
      ...w.status,
      conditions,
      admissionChecks: (w.status?.admissionChecks ?? []).map((c) => (c.name === CHECK ? { ...c, state: CheckStates.ready } : c)),
    },
  } as KubeObject;
}
