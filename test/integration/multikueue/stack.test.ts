// The two-cluster stack (dev/harness/multikueue.ts, docs/multikueue.md) on the real parts: a
// manager and a worker, each its own etcd, API server, controller manager, scheduler, KWOK nodes,
// JobSet, Trainer and Kueue v0.19.2. What MultiKueue does with a TrainJob that dispatch would
// start (issue #38's two design facts): the worker's copy carries the manager's labels and
// annotations, no owner references and no MultiKueue managedBy; the worker's Trainer webhook
// refuses a TrainJob whose runtime the worker lacks, and MultiKueue copies no runtime.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeCall, kubeRequest, type KubeAccess } from '../../../dev/harness/kube-access.js';
import { clusterMemory, describeMemory } from '../../../dev/harness/memory.js';
import { conditionOf, MultiKueueNames, untilConditionTrue } from '../../../dev/harness/multikueue.js';
import { activateAdmissionCheck, KUEUE_SAMPLE_CHECK, KUEUE_SAMPLE_CLUSTER_QUEUE, KUEUE_SAMPLE_QUEUE } from '../../../dev/harness/samples.js';
import { conditionOf as conditionIn, isConditionTrue } from '../../../src/core/objects/conditions.js';
import { Annotations, Labels, Trainer } from '../../../src/model/constants.js';
import type { KubeObject, TrainJob, Workload } from '../../../src/model/kube.js';
import { uniqueName } from '../support/kube.js';
import { clusterAccess, multiKueueNamespace, multiKueueStack } from '../support/multikueue.js';
import { until } from '../support/operations.js';
import { sampleRuntime } from '../support/trainer.js';

const KUEUE_API = '/apis/kueue.x-k8s.io/v1beta2';
const MULTIKUEUE_MANAGED_BY = 'kueue.x-k8s.io/multikueue';
/** Generous bounds: a loaded two-core machine runs three clusters while this file runs. */
const BOUND = 120_000;

const stack = multiKueueStack(1);

const trainerPath = (namespace: string, plural: string, name = '') => `/apis/${Trainer.apiVersion}/namespaces/${namespace}/${plural}${name ? `/${name}` : ''}`;

/** The object at `path`, or undefined on 404. */
async function find<T>(access: KubeAccess, path: string): Promise<T | undefined> {
  const res = await kubeRequest(access, 'GET', path);
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}: ${res.body.slice(0, 300)}`);
  return res.json as T;
}



/** A runtime copy as dispatch makes it (a TrainingRuntime of the sample's spec, its labels and annotation), on one cluster. */
async function createRuntimeCopy(access: KubeAccess, namespace: string, name: string): Promise<KubeObject> {
  const { spec } = await sampleRuntime('dispatch-kind');
  const body = {
    apiVersion: Trainer.apiVersion,
    kind: Trainer.trainingRuntimeKind,
    metadata: { name, labels: { [Labels.managedBy]: 'dispatch' }, annotations: { [Annotations.sourceRuntime]: 'ClusterTrainingRuntime/dispatch-kind' } },
    spec,
  };
  return (await kubeCall(access, 'POST', trainerPath(namespace, Trainer.trainingRuntimePlural), body)) as KubeObject;
}

/** A TrainJob in the Kueue-managed namespace, its LocalQueue named, on the runtime copy. */
function trainJob(name: string, runtime: string): KubeObject {
  return {
    apiVersion: Trainer.apiVersion,
    kind: Trainer.trainJobKind,
    metadata: {
      name,
      labels: { [Labels.kueueQueueName]: KUEUE_SAMPLE_QUEUE, 'test.dispatch.phpboyscout.uk/label': 'kept' },
      annotations: { 'test.dispatch.phpboyscout.uk/annotation': 'kept too' },
    },
    spec: { runtimeRef: { apiGroup: Trainer.group, kind: Trainer.trainingRuntimeKind, name: runtime } },
  };
}

/** The manager's Workload of a TrainJob (by Kueue's job-uid label). */
async function workloadOf(access: KubeAccess, namespace: string, uid: string): Promise<Workload | undefined> {
  const list = (await kubeCall(access, 'GET', `${KUEUE_API}/namespaces/${namespace}/workloads?labelSelector=${Labels.kueueJobUid}%3D${uid}`)) as { items: Workload[] };
  return list.items[0];
}

/** Sets dispatch's check Ready on the Workload, as dispatch's controller does on Open (a JSON patch tested against the entry). */
async function setDispatchCheckReady(access: KubeAccess, workload: Workload): Promise<void> {
  const checks = workload.status?.admissionChecks ?? [];
  const index = checks.findIndex((c) => c.name === KUEUE_SAMPLE_CHECK);
  if (index < 0) throw new Error(`Workload ${workload.metadata?.name} lists no check ${KUEUE_SAMPLE_CHECK}`);
  const entry = { ...checks[index], state: 'Ready', message: 'set Ready by the MultiKueue stack test', lastTransitionTime: new Date().toISOString() };
  const path = `${KUEUE_API}/namespaces/${workload.metadata?.namespace}/workloads/${workload.metadata?.name}/status`;
  await kubeCall(access, 'PATCH', path, [{ op: 'test', path: `/status/admissionChecks/${index}/name`, value: KUEUE_SAMPLE_CHECK }, { op: 'replace', path: `/status/admissionChecks/${index}`, value: entry }], {
    contentType: 'application/json-patch+json',
  });
}

const checkState = (workload: Workload | undefined, name: string) => workload?.status?.admissionChecks?.find((c) => c.name === name);

/** dispatch's check Active (as its controller keeps it), and a fresh namespace on both clusters. */
async function withNamespace(prefix: string) {
  const info = stack().info;
  const { manager, workers } = clusterAccess(info);
  await activateAdmissionCheck(manager, KUEUE_SAMPLE_CHECK);
  return { info, manager, worker: workers[0]!, ns: await multiKueueNamespace(info, prefix) };
}

/** The manager's Workload of the TrainJob once it has quota reserved and lists MultiKueue's check. */
const untilReserved = (manager: KubeAccess, namespace: string, uid: string) =>
  until('the manager Workload with quota reserved and both checks listed', BOUND, async () => {
    const wl = await workloadOf(manager, namespace, uid);
    return isConditionTrue(wl, 'QuotaReserved') && checkState(wl, MultiKueueNames.admissionCheck) ? wl : undefined;
  });

/** The manager's Workload once MultiKueue has placed it (status.clusterName). */
const untilPlaced = (manager: KubeAccess, namespace: string, uid: string) =>
  until('the Workload status.clusterName', BOUND, async () => {
    const wl = await workloadOf(manager, namespace, uid);
    return wl?.status?.clusterName ? wl : undefined;
  });

describe('MultiKueue on two real clusters (manager and worker-1)', () => {
  it("a ClusterQueue may list MultiKueue's check beside dispatch's: inactive while dispatch's is not Active, Active once both are", async () => {
    const { manager } = clusterAccess(stack().info);
    const queuePath = `${KUEUE_API}/clusterqueues/${KUEUE_SAMPLE_CLUSTER_QUEUE}`;
    const queue = (await kubeCall(manager, 'GET', queuePath)) as { spec: { admissionChecksStrategy: { admissionChecks: { name: string }[] } } };
    expect(queue.spec.admissionChecksStrategy.admissionChecks.map((c) => c.name)).toEqual([KUEUE_SAMPLE_CHECK, MultiKueueNames.admissionCheck]);
    // MultiKueue's check is Active (the stack waited for it); dispatch's is not until its controller (here: the test) says so.
    const before = await until('the ClusterQueue to say which check it waits for', BOUND, async () => {
      const c = await conditionOf(manager, queuePath, 'Active');
      // Until Kueue's cache has seen MultiKueue's check Active, the message names both.
      return c?.status === 'False' && c.message?.includes(KUEUE_SAMPLE_CHECK) && !c.message.includes(MultiKueueNames.admissionCheck) ? c : undefined;
    });
    console.log(`[multikueue] ClusterQueue ${KUEUE_SAMPLE_CLUSTER_QUEUE} with both checks, dispatch's inactive: Active ${before.status} ${before.reason}: ${before.message}`);
    expect(before.reason).toBe('AdmissionCheckInactive');

    await activateAdmissionCheck(manager, KUEUE_SAMPLE_CHECK);
    await untilConditionTrue(manager, queuePath, 'Active', `ClusterQueue ${KUEUE_SAMPLE_CLUSTER_QUEUE} Active with both checks`, BOUND);
    const after = await conditionOf(manager, queuePath, 'Active');
    console.log(`[multikueue] both checks Active: ClusterQueue Active ${after?.status} ${after?.reason}: ${after?.message}`);
    expect(after).toMatchObject({ status: 'True', reason: 'Ready' });
  }, 300_000);

  it("a TrainJob on the manager runs on the worker once dispatch's check is Ready: the copy keeps labels and annotations, has no owner and no MultiKueue managedBy; its status comes back", async () => {
    const { info, manager, worker, ns } = await withNamespace('mk-run');
    try {
      const runtime = uniqueName('dispatch-copy');
      const [onManager, onWorker] = [await createRuntimeCopy(manager, ns.name, runtime), await createRuntimeCopy(worker, ns.name, runtime)];
      expect(onWorker.metadata?.labels).toEqual(onManager.metadata?.labels);

      const name = uniqueName('mk-job');
      const t0 = Date.now();
      const created = (await kubeCall(manager, 'POST', trainerPath(ns.name, Trainer.trainJobPlural), trainJob(name, runtime))) as TrainJob;
      // Kueue's webhook on the manager: managedBy is MultiKueue's, so the manager's Trainer leaves it alone.
      expect(created.spec.managedBy).toBe(MULTIKUEUE_MANAGED_BY);
      expect(created.spec.suspend).toBe(true);
      const uid = created.metadata.uid!;

      const reserved = await untilReserved(manager, ns.name, uid);
      expect(reserved.status?.admissionChecks?.map((c) => c.name).sort()).toEqual([KUEUE_SAMPLE_CHECK, MultiKueueNames.admissionCheck].sort());
      expect(checkState(reserved, KUEUE_SAMPLE_CHECK)?.state).toBe('Pending');
      // MultiKueue nominates no worker while another check is not Ready (workload.go,
      // allNonMKAdmissionChecksReady): one read, since an absence cannot be awaited.
      expect(await find(worker, trainerPath(ns.name, Trainer.trainJobPlural, name))).toBeUndefined();
      expect(reserved.status?.clusterName).toBeUndefined();

      await setDispatchCheckReady(manager, reserved);
      const placed = await untilPlaced(manager, ns.name, uid);
      expect(placed.status?.clusterName).toBe(info.workers![0]!.name);
      const copy = await until("the worker's copy of the TrainJob", BOUND, () => find<TrainJob>(worker, trainerPath(ns.name, Trainer.trainJobPlural, name)));
      const tCopy = Date.now() - t0;
      const manager1 = (await find<TrainJob>(manager, trainerPath(ns.name, Trainer.trainJobPlural, name)))!;
      // Every label and annotation of the manager's TrainJob is on the copy, with its value;
      // MultiKueue adds its origin label and the prebuilt-workload annotation (an annotation since
      // Kueue's WorkloadIdentifierAnnotations gate, on in v0.19.2), nothing else.
      expect(copy.metadata.labels).toMatchObject(manager1.metadata.labels ?? {});
      expect(copy.metadata.annotations ?? {}).toMatchObject(manager1.metadata.annotations ?? {});
      const added = Object.keys(copy.metadata.labels ?? {}).filter((k) => !(k in (manager1.metadata.labels ?? {})));
      const addedAnnotations = Object.keys(copy.metadata.annotations ?? {}).filter((k) => !(k in (manager1.metadata.annotations ?? {})));
      expect(added).toEqual(['kueue.x-k8s.io/multikueue-origin']);
      expect(copy.metadata.labels?.['kueue.x-k8s.io/multikueue-origin']).toBe('multikueue');
      expect(addedAnnotations).toEqual(['kueue.x-k8s.io/prebuilt-workload-name']);
      expect(copy.metadata.annotations?.['kueue.x-k8s.io/prebuilt-workload-name']).toBe(placed.metadata?.name);
      expect(copy.metadata.ownerReferences ?? []).toEqual([]);
      expect(copy.metadata.uid).not.toBe(uid);
      // managedBy cleared by MultiKueue; Trainer's defaulting on the worker may fill in its own.
      expect([undefined, Trainer.controllerManagedBy]).toContain(copy.spec.managedBy);
      console.log(
        `[multikueue] worker copy: managedBy ${JSON.stringify(copy.spec.managedBy)}, ownerReferences ${JSON.stringify(copy.metadata.ownerReferences ?? [])}, ` +
          `labels added ${added.join(', ')}, annotations added ${addedAnnotations.join(', ')}; runtimePatches ${JSON.stringify((copy.spec.runtimePatches ?? []).map((p) => p.manager))} ` +
          `(manager: ${JSON.stringify((manager1.spec.runtimePatches ?? []).map((p) => p.manager))}); copy after ${tCopy} ms`,
      );
      // The manager's Trainer leaves a TrainJob of MultiKueue's alone: no JobSet there (one read,
      // once the worker's copy exists), and its pods run on the worker.
      const jobsets = (await kubeCall(manager, 'GET', `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${ns.name}/jobsets`)) as { items: unknown[] };
      expect(jobsets.items).toEqual([]);
      // MultiKueue copies no runtime: the one on the worker is the test's own, unchanged.
      const workerRuntime = (await find<KubeObject>(worker, trainerPath(ns.name, Trainer.trainingRuntimePlural, runtime)))!;
      expect(workerRuntime.metadata?.uid).toBe(onWorker.metadata?.uid);

      // KWOK runs it on the worker; the worker's TrainJob completes, and MultiKueue copies its status to the manager's.
      const done = await until("the worker's TrainJob Complete", BOUND, async () => {
        const job = await find<TrainJob>(worker, trainerPath(ns.name, Trainer.trainJobPlural, name));
        return isConditionTrue(job, 'Complete') ? job : undefined;
      });
      const tComplete = Date.now() - t0;
      const back = await until("the manager's TrainJob Complete (status copied back)", BOUND, async () => {
        const job = await find<TrainJob>(manager, trainerPath(ns.name, Trainer.trainJobPlural, name));
        return isConditionTrue(job, 'Complete') ? job : undefined;
      });
      const tBack = Date.now() - t0;
      expect(conditionIn(back, 'Complete')).toMatchObject({ status: 'True' });
      expect(back.spec.managedBy).toBe(MULTIKUEUE_MANAGED_BY);
      console.log(`[multikueue] TrainJob created on the manager: worker copy ${tCopy} ms, Complete on the worker ${tComplete} ms, on the manager ${tBack} ms (Complete: ${JSON.stringify(conditionIn(done, 'Complete')?.message)})`);
    } finally {
      await ns.dispose();
    }
  }, 400_000);

  it("without the runtime on the worker: the worker's webhooks refuse the copy, the manager's Workload stays unplaced, and MultiKueue makes the copy once the runtime is there", async () => {
    const { info, manager, worker, ns } = await withNamespace('mk-noruntime');
    try {
      const runtime = uniqueName('dispatch-copy');
      await createRuntimeCopy(manager, ns.name, runtime);
      // The refusal itself, on the worker, for the same TrainJob made there directly.
      const direct = await kubeRequest(worker, 'POST', trainerPath(ns.name, Trainer.trainJobPlural), trainJob(uniqueName('direct'), runtime));
      const refusal = (direct.json as { message?: string }).message ?? direct.body;
      console.log(`[multikueue] worker's webhooks, runtime absent: HTTP ${direct.status}: ${refusal}`);
      // Trainer's validator and (for a TrainJob with a queue) Kueue's both refuse it; the API
      // server calls validating webhooks in parallel and answers with one refusal.
      expect(direct.status).toBe(403);
      expect(refusal).toMatch(/admission webhook .* denied the request: .*not found/);

      const name = uniqueName('mk-job');
      const created = (await kubeCall(manager, 'POST', trainerPath(ns.name, Trainer.trainJobPlural), trainJob(name, runtime))) as TrainJob;
      const uid = created.metadata.uid!;
      const reserved = await untilReserved(manager, ns.name, uid);
      await setDispatchCheckReady(manager, reserved);
      // MultiKueue makes the worker's Workload (prebuilt, as for any copy) and then fails to make the TrainJob.
      const remote = await until("the worker's Workload for the copy", BOUND, async () => {
        const list = (await kubeCall(worker, 'GET', `${KUEUE_API}/namespaces/${ns.name}/workloads`)) as { items: Workload[] };
        return list.items.find((w) => w.metadata?.name === reserved.metadata?.name);
      });
      const kueueLog = join(info.kube.logDir, 'kueue.log');
      const logged = await until("the manager Kueue's log of the refused create", BOUND, async () => {
        const lines = readFileSync(kueueLog, 'utf8').split('\n').filter((l) => l.includes(name) && l.includes('admission webhook'));
        return lines.length > 0 ? lines : undefined;
      });
      const wl = await workloadOf(manager, ns.name, uid);
      // Whether anything on the manager names the refusal: its events in the namespace.
      const events = (await kubeCall(manager, 'GET', `/api/v1/namespaces/${ns.name}/events`)) as { items: { reason?: string; message?: string; involvedObject?: { kind?: string } }[] };
      const naming = events.items.filter((e) => /not found|webhook/.test(e.message ?? ''));
      console.log(
        `[multikueue] manager events in the namespace: ${events.items.map((e) => `${e.involvedObject?.kind}/${e.reason}`).join(', ')}; naming the refusal: ${naming.length}`,
      );
      console.log(
        `[multikueue] runtime absent on the worker: worker Workload ${remote.metadata?.name} (QuotaReserved ${isConditionTrue(remote, 'QuotaReserved')}); ` +
          `manager Workload clusterName ${JSON.stringify(wl?.status?.clusterName)}, nominated ${JSON.stringify(wl?.status?.nominatedClusterNames)}, ` +
          `MultiKueue check ${JSON.stringify(checkState(wl, MultiKueueNames.admissionCheck))}, Admitted ${isConditionTrue(wl, 'Admitted')}; ` +
          `manager Kueue log (${logged.length} lines), first: ${logged[0]?.slice(0, 600)}`,
      );
      expect(await find(worker, trainerPath(ns.name, Trainer.trainJobPlural, name))).toBeUndefined();
      expect(await find(worker, trainerPath(ns.name, Trainer.trainingRuntimePlural, runtime))).toBeUndefined();
      expect(isConditionTrue(wl, 'Admitted')).toBe(false);
      expect(wl?.status?.clusterName).toBeUndefined();
      expect(checkState(wl, MultiKueueNames.admissionCheck)?.state).toBe('Pending');

      // MultiKueue keeps trying: once the runtime exists on the worker, the copy is made there.
      await createRuntimeCopy(worker, ns.name, runtime);
      const t0 = Date.now();
      await until("the worker's copy once its runtime exists", BOUND, () => find<TrainJob>(worker, trainerPath(ns.name, Trainer.trainJobPlural, name)));
      const placed = await untilPlaced(manager, ns.name, uid);
      console.log(`[multikueue] runtime made on the worker afterwards: copy there ${Date.now() - t0} ms later, clusterName ${placed.status?.clusterName}`);
    } finally {
      await ns.dispose();
    }
  }, 400_000);

  it('what the second cluster costs: its start-up by part and the resident memory of each cluster', () => {
    const info = stack().info;
    const { timings } = stack();
    const manager = clusterMemory(info.kube.pids);
    console.log(`[multikueue] stack up in ${timings.total} ms; manager start ${JSON.stringify({ ...timings, total: undefined })}`);
    console.log(`[multikueue] manager memory: ${describeMemory(manager)}`);
    for (const w of info.workers ?? []) {
      const memory = clusterMemory(w.kube.pids);
      console.log(`[multikueue] ${w.name} start (ms from its launch): ${JSON.stringify(w.timings)}; memory: ${describeMemory(memory)}`);
      // Within this 2-core, 24 GiB machine: a worker well under 2 GiB and up in under two minutes.
      expect(memory.total).toBeGreaterThan(0);
      expect(memory.total).toBeLessThan(2 * 2 ** 30);
      expect(Math.max(...Object.values(w.timings))).toBeLessThan(120_000);
    }
  });
});
