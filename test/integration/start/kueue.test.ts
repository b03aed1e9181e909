// StartTrainJob in Kueue mode, step 9's refusals and timing, with a Kueue stand-in (docs/start.md step 9).
// The real Kueue cannot be made to omit a Workload, be slow, or drop the gate or the check, so this
// file runs on a cluster of its own without Kueue (its CRDs only), where FakeKueue makes each
// TrainJob's Workload or misbehaves on purpose. The real Kueue's path is in kueue-real.test.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Annotations, Dispatch, Kueue, Labels, Trainer } from '../../../src/model/constants.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { TrainJob, Workload } from '../../../src/model/kube.js';
import type { StartRequest } from '../../../src/model/request.js';
import type { StartResult } from '../../../src/model/results.js';
import { trainJobName } from '../../../src/core/start/names.js';
import { typed } from '../../../src/client/dispatch-client.js';
import type { Progress } from '../../../src/workflows/progress.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import {
  FakeKueue,
  type KueueBehaviour,
} from '../support/fake-kueue.js';
import { kubeConfigFor } from '../../../dev/harness/kube-access.js';
import { adminAccess, type LocalCluster } from '../../../dev/harness/cluster.js';
import { startKueueFreeCluster } from '../support/kueue-free-cluster.js';
import { freshNamespace, kubeAccess, type TestNamespace } from '../support/kube.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { until } from '../support/operations.js';

const KUEUE_CONFIG = {
  mode: 'kueue',
  kueue: { queue: 'user-queue', admissionCheck: 'dispatch' },
  timeouts: { workload: '5s', call: '5s' },
} as const;


const nameOf = (request: StartRequest) => trainJobName(request.job, request.submission);

/**
 * The timing tests' Workload wait: long enough that a Workload aimed at a point inside it lands
 * there on a loaded machine too (the aim is taken from the wait's own deadline, not a guess).
 */
const TIMING_CONFIG = { ...KUEUE_CONFIG, timeouts: { workload: '12s', call: '5s' } } as const;
/** How long before the wait's deadline the last-seconds test makes the Workload. */
const LAST_MS = 2_000;

/** What the Workload wait's heartbeat carries (src/activities/workload-activities.ts). */
interface WaitProgress {
  /** Epoch ms by which the Workload must be right. */
  deadline: number;
  checks: number;
}

/** The wait's first heartbeat: its first check has not found the Workload, and this is its deadline. */
function waitProgressOf(handle: WorkflowHandle): Promise<WaitProgress> {
  return until('the Workload wait to report a check that found no Workload', 60_000, async () => {
    const { raw } = await handle.describe();
    const wait = raw.pendingActivities?.find((a) => a.activityType?.name === 'waitForWorkload');
    const payload = wait?.heartbeatDetails?.payloads?.[0];
    return payload ? defaultPayloadConverter.fromPayload<WaitProgress>(payload) : undefined;
  });
}

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  const value = await work();
  return { value, ms: Date.now() - t0 };
}


/**
 * What an activity was given (the history keeps no local activity's input). Every attempt of it was
 * given the same: on a loaded machine a heartbeat can be late and step 6 run twice (the second
 * adopting the first's TrainJob), so this does not ask for exactly one attempt.
 */
const activityInput = (h: DispatchHarness, handle: WorkflowHandle, type: string): unknown => {
  const inputs = h.calls.of(handle.workflowId, type).map((call) => call.input);
  expect(inputs.length).toBeGreaterThan(0);
  for (const input of inputs) expect(input).toEqual(inputs[0]);
  return inputs[0];
};

/** What the one successful attempt of an activity returned. */
const activityResult = (h: DispatchHarness, handle: WorkflowHandle, type: string): unknown => h.calls.succeeded(handle.workflowId, type).result;

function harnessHelpers(get: () => { h: DispatchHarness; ns: TestNamespace }) {
  const at = (version: string, plural: string) => ({ version, plural, namespace: get().ns.name });
  return {
    /** The object, or undefined on 404. */
    async find<T>(group: string, version: string, plural: string, name: string): Promise<T | undefined> {
      try {
        return (await get().h.kube.custom.getNamespacedCustomObject({
          group,
          ...at(version, plural),
          name,
        })) as T;
      } catch (error) {
        if ((error as { code?: number }).code === 404) return undefined;
        throw error;
      }
    },
    trainJob(name: string): Promise<TrainJob | undefined> {
      return this.find<TrainJob>(Trainer.group, Trainer.version, Trainer.trainJobPlural, name);
    },
    copy(name: string): Promise<TrainJob | undefined> {
      return this.find(Trainer.group, Trainer.version, Trainer.trainingRuntimePlural, name);
    },
    async workloadsOf(uid: string): Promise<Workload[]> {
      const { h } = get();
      const list = (await h.kube.custom.listNamespacedCustomObject({
        group: Kueue.group,
        ...at(h.config.kueue.workloadVersion, Kueue.workloadPlural),
        labelSelector: `${Labels.kueueJobUid}=${uid}`,
      })) as { items: Workload[] };
      return list.items;
    },
  };
}

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startKueueFreeCluster('kueue-stand-in');
}, 300_000);
afterAll(async () => {
  await cluster?.stop();
});

/** A namespace on the Kueue-free cluster, a worker in Kueue mode on `config`, and a FakeKueue for it. */
function standIn(prefix: string, config: typeof KUEUE_CONFIG | typeof TIMING_CONFIG) {
  const parts = {} as { ns: TestNamespace; h: DispatchHarness; kueue: FakeKueue };
  beforeAll(async () => {
    parts.ns = await freshNamespace(prefix, cluster.info);
    parts.h = await startDispatch({ namespace: parts.ns.name, config, cluster: cluster.info });
    parts.kueue = await FakeKueue.start({ kubeConfig: kubeConfigFor({ ...adminAccess(cluster.info), namespace: parts.ns.name }), config: parts.h.config });
  });
  afterAll(async () => {
    await parts.kueue?.stop();
    await parts.h?.close();
  });
  afterEach(() => {
    expect(parts.kueue.errors).toEqual([]);
  });
  return parts;
}

describe('FakeKueue', () => {
  it('refuses a cluster where the real Kueue runs: its Workloads would contradict the stand-in', async () => {
    const ns = await freshNamespace('fake-kueue-refused');
    try {
      await expect(
        FakeKueue.start({ kubeConfig: kubeConfigFor(kubeAccess('admin', ns.name)), config: parseConfig({ namespace: ns.name, ...KUEUE_CONFIG }) }),
      ).rejects.toThrow(/the real Kueue runs on this cluster/);
    } finally {
      await ns.dispose();
    }
  });
});

describe('StartTrainJob, Kueue mode, step 9 timing: the Workload made when the wait says (docs/start.md step 9)', () => {
  const t = standIn('kueue-timing', TIMING_CONFIG);

  /** Submits a Start whose Workload the stand-in makes only on `made.resolve()`, and waits for the wait's first vain check. */
  async function heldBack() {
    const request = startRequest();
    const name = nameOf(request);
    const made = deferred();
    t.kueue.behave(name, { when: made.promise });
    const handle = await t.h.client.submit(request);
    return { name, made, handle, wait: await waitProgressOf(handle) };
  }

  it('step 9: a Workload that appears ~2 s after the wait first checked in vain is found by a later check', async () => {
    const { name, made, handle, wait } = await heldBack();
    await sleep(2_000);
    made.resolve();
    const { value: result, ms } = await timed(() => handle.result() as Promise<StartResult>);
    expect(result.mode).toBe('kueue');

    const workload = t.kueue.eventsOf(name).find((e) => e.what === 'workload')!;
    expect(workload.at).toBeLessThan(wait.deadline);
    const waited = activityResult(t.h, handle, 'waitForWorkload') as { checks: number };
    expect(waited.checks).toBeGreaterThanOrEqual(2);
    console.log(`[kueue] slow Workload: found ${ms} ms after it was let through, ${waited.checks} checks`);
  });

  it(`step 9: a Workload that appears in the last ${LAST_MS / 1000} s of timeouts.workload is still found: the last check is at the deadline`, async () => {
    const { name, made, handle, wait } = await heldBack();
    await sleep(Math.max(0, wait.deadline - LAST_MS - Date.now()));
    made.resolve();
    const result = (await handle.result()) as StartResult;
    expect(result.mode).toBe('kueue');

    // The Workload existed (its create answered) inside the wait's last LAST_MS.
    const workload = t.kueue.eventsOf(name).find((e) => e.what === 'workload')!;
    expect(workload.at).toBeGreaterThanOrEqual(wait.deadline - LAST_MS);
    expect(workload.at).toBeLessThan(wait.deadline);
    console.log(`[kueue] Workload ${wait.deadline - workload.at} ms before the deadline: found`);
  });
});

describe('StartTrainJob, Kueue mode (docs/start.md step 9; docs/contract.md §3, §4a, §7)', () => {
  const standing = standIn('kueue', KUEUE_CONFIG);
  let ns: TestNamespace;
  let h: DispatchHarness;
  let kueue: FakeKueue;
  beforeAll(() => {
    ({ ns, h, kueue } = standing);
  });
  const k8s = harnessHelpers(() => ({ h, ns }));

  /**
   * Compensation ran: the stop deleted the TrainJob alone (the copy's owner was set at step 7), and
   * the garbage collector took the copy and the Workload. Returns how long collection took.
   */
  async function expectStoppedAndCollected(
    handle: WorkflowHandle,
    name: string,
    uid: string,
  ): Promise<number> {
    expect(activityResult(h, handle, 'stopTrainJob')).toEqual({ deleted: [`TrainJob ${ns.name}/${name}`] });
    const t0 = Date.now();
    await until(`TrainJob ${name}, its runtime copy and its Workload to be gone`, 30_000, async () => {
      const [job, copy, workloads] = await Promise.all([
        k8s.trainJob(name),
        k8s.copy(name),
        k8s.workloadsOf(uid),
      ]);
      return job === undefined && copy === undefined && workloads.length === 0 ? true : undefined;
    });
    return Date.now() - t0;
  }

  interface Refusal {
    name: string;
    uid: string;
    reasons: readonly string[];
    /** From submitting the Start to its failure. */
    ms: number;
  }

  /**
   * Starts a request the fake treats with `behaviour`, expects ErrRejected at step 9 with the
   * TrainJob's ref, then that compensation stopped it and the garbage collector took the rest.
   * `whileWaiting` runs once the Start is submitted.
   */
  async function refusedAtStep9(
    behaviour: KueueBehaviour,
    whileWaiting?: (handle: WorkflowHandle, name: string) => Promise<void>,
  ): Promise<Refusal> {
    const request = startRequest();
    const name = nameOf(request);
    kueue.behave(name, behaviour);
    const t0 = Date.now();
    const handle = await h.client.submit(request);
    await whileWaiting?.(handle, name);
    const error = await handle.result().then(
      () => undefined,
      (e: unknown) => typed(e),
    );
    const ms = Date.now() - t0;
    if (!(error instanceof DispatchError))
      throw new Error(`expected a refusal, got ${error === undefined ? 'success' : String(error)}`);
    const uid = kueue.eventsOf(name)[0]!.uid;
    expect(error.type).toBe('ErrRejected');
    expect(error.step).toBe(9);
    expect(error.ref).toEqual({ namespace: ns.name, name, uid });
    expect(error.reasons[0]).toBe(`the Workload of TrainJob ${ns.name}/${name} was not right within 5s`);

    const collectedMs = await expectStoppedAndCollected(handle, name, uid);
    console.log(
      `[kueue] ${JSON.stringify(behaviour)}: refused after ${ms} ms, collected ${collectedMs} ms later`,
    );
    return { name, uid, reasons: error.reasons, ms };
  }

  it('step 9: a Workload without dispatch gate in admission-gated-by is ErrRejected with the ref; the TrainJob is stopped and its copy collected', async () => {
    const { reasons } = await refusedAtStep9({ omitGate: true });
    expect(
      reasons.some((r) => r.includes(Annotations.kueueAdmissionGatedBy) && r.includes(Dispatch.defaultGate)),
    ).toBe(true);
    expect(reasons.join('\n')).not.toContain('status.admissionChecks');
  });

  it('step 9: a Workload whose status.admissionChecks lacks kueue.admissionCheck is ErrRejected naming the check; stopped and collected', async () => {
    const { reasons } = await refusedAtStep9({ omitAdmissionCheck: true });
    expect(reasons.some((r) => r.includes('status.admissionChecks') && r.includes('dispatch'))).toBe(true);
    expect(reasons.join('\n')).not.toContain(Annotations.kueueAdmissionGatedBy);
  });

  it('step 9: no Workload within timeouts.workload (5s) is ErrRejected naming that none exists; progress reports step 9 meanwhile', async () => {
    let progress: Progress | undefined;
    const { name, uid, reasons, ms } = await refusedAtStep9({ never: true }, async (handle) => {
      // Step 9 lasts timeouts.workload (5 s); the steps before it may take a while on a loaded machine.
      progress = await until('the progress query to report step 9', 60_000, async () => {
        const p = await handle.query<Progress>('progress');
        return p.step === 9 ? p : undefined;
      });
    });
    expect(progress).toEqual({
      step: 9,
      stepName: 'wait for Workload',
      waitingFor: `the Workload of TrainJob ${ns.name}/${name}`,
      trainJob: `${ns.name}/${name}`,
      uid,
    });
    expect(reasons).toContain(`Workload: none labelled ${Labels.kueueJobUid}=${uid} in ${ns.name}`);
    // Checked every second, the last time at the deadline itself.
    expect(ms).toBeGreaterThanOrEqual(5_000);
  });

});

describe('StartTrainJob, plain mode, for comparison with Kueue mode', () => {
  let ns: TestNamespace;
  let h: DispatchHarness;

  beforeAll(async () => {
    ns = await freshNamespace('kueue-plain');
    h = await startDispatch({ namespace: ns.name });
  });
  afterAll(async () => {
    await h?.close();
    await ns?.dispose();
  });

  it('a successful plain Start sends spec.suspend: true at step 6; its history size is printed for comparison', async () => {
    const request = startRequest();
    const handle = await h.client.submit(request);
    const { value: result, ms } = await timed(() => handle.result() as Promise<StartResult>);
    expect(result.mode).toBe('plain');
    const events = (await handle.fetchHistory()).events ?? [];
    expect((activityInput(h, handle, 'createTrainJob') as { trainJob: TrainJob }).trainJob.spec.suspend).toBe(
      true,
    );
    console.log(`[kueue] successful plain Start: ${events.length} history events, ${ms} ms`);
  });
});
