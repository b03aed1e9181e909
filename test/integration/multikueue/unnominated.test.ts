// A Workload MultiKueue left unnominated, on two real clusters (docs/multikueue.md, "A Workload
// MultiKueue left unnominated"): Kueue v0.19.2's MultiKueue reconciles a Workload only when it
// changes, and nominates only the worker clusters connected at that moment (and only once every
// other check is Ready). Here the job is opened and its quota reserved with worker-1 connected, but
// dispatch's admission check controller starts only once worker-1's API server is stopped: its
// Ready is the Workload's last change, MultiKueue's reconcile of it finds no connected cluster and
// nominates none, and once worker-1 is back nothing in Kueue reconciles the Workload again. The admission check controller writes its Ready
// again (NUDGE_AFTER_MS after it), MultiKueue reconciles, nominates worker-1, and the job runs
// there: the Watch ends Succeeded with cluster worker-1.
import { afterAll, describe, expect, it } from 'vitest';
import { NUDGE_AFTER_MS } from '../../../src/core/admission/multikueue-nudge.js';
import { conditionOf } from '../../../src/core/objects/conditions.js';
import type { Workload } from '../../../src/model/kube.js';
import type { Outcome, TrainJobRef } from '../../../src/model/operations.js';
import { createAdmissionController } from '../../../src/worker/admission-controller.js';
import { startRequest } from '../../support/requests.js';
import { refOf, runFor } from '../operations/support.js';
import { startDispatch } from '../support/dispatch.js';
import type { TestNamespace } from '../support/kube.js';
import { multiKueueClusterActive, multiKueueConfig, multiKueueNamespace, multiKueueStack } from '../support/multikueue.js';
import { until, workloadOf } from '../support/operations.js';
import { runtimeFixtures } from '../support/runtimes.js';

/** Generous bounds for events: a loaded two-core machine runs two clusters and Temporal here. */
const BOUND = 120_000;
const TEST_TIMEOUT = 600_000;

const stack = multiKueueStack(1);
const namespaces: TestNamespace[] = [];
afterAll(async () => {
  await Promise.all(namespaces.map((ns) => ns.dispose()));
});

const checks = (wl: Workload | undefined) => Object.fromEntries((wl?.status?.admissionChecks ?? []).map((c) => [c.name, c.state]));
const nominatedOf = (wl: Workload | undefined) => (wl?.status?.nominatedClusterNames as string[] | undefined) ?? [];

describe('MultiKueue: a Workload whose check went Ready while the worker cluster was away', () => {
  it('is written Ready again by the admission check controller once the cluster is back, and the job then runs there', async () => {
    const { info, workerClusters } = stack();
    const worker = workerClusters![0]!;
    const workerInfo = info.workers![0]!;
    const ns = await multiKueueNamespace(info, 'mk-unnominated');
    namespaces.push(ns);
    const h = await startDispatch({ namespace: ns.name, cluster: info.kube, config: multiKueueConfig(workerInfo, { workload: '30s', call: '10s' }), admissionController: false });
    const stopController = new AbortController();
    let controlling: Promise<void> | undefined;
    let keeping: Promise<void> | undefined;
    let ref: TrainJobRef | undefined;
    try {
      const runtime = await runtimeFixtures(h.kube).namespaced(ns.name, 'unnominated', runFor('3s'));
      // dispatch's AdmissionCheck must be Active for the ClusterQueue to reserve quota: a controller
      // for another namespace keeps it so (the AdmissionCheck is cluster-scoped) and marks no Workload here.
      const keeper = createAdmissionController({ kube: h.kube, config: { ...h.config, namespace: 'default' }, requestTimeoutMs: 10_000, log: () => {} });
      keeping = keeper.run(stopController.signal);
      // Started and opened with worker-1 up: quota reserved, dispatch's check Pending (no controller here yet).
      ref = refOf(await h.client.startTrainJob(startRequest({ runtime })));
      await h.client.open(ref);
      await until('the quota reserved, with both checks Pending', BOUND, async () => {
        const wl = await workloadOf(h.kube, ns.name, ref!.uid);
        const states = Object.values(checks(wl));
        return conditionOf(wl, 'QuotaReserved')?.status === 'True' && states.length === 2 && states.every((x) => x === 'Pending') ? true : undefined;
      });

      await worker.cluster.apiServer.stop(1_000);
      await until("the manager's MultiKueueCluster worker-1 Active=False", BOUND, async () => ((await multiKueueClusterActive(h.kube, worker.name))?.status === 'False' ? true : undefined));
      // The controller now: its Ready comes while MultiKueue reaches no worker cluster.
      const controller = createAdmissionController({ kube: h.kube, config: h.config, requestTimeoutMs: 10_000, log: () => {} });
      controlling = controller.run(stopController.signal);
      const readyAt = Date.now();
      const stalled = await until("dispatch's check Ready with MultiKueue's Pending and no cluster nominated", BOUND, async () => {
        const wl = await workloadOf(h.kube, ns.name, ref!.uid);
        const states = checks(wl);
        return Object.values(states).filter((s) => s === 'Ready').length === 1 && Object.values(states).includes('Pending') && nominatedOf(wl).length === 0 ? { wl, states } : undefined;
      });

      const t1 = Date.now();
      await worker.cluster.apiServer.start();
      await until("the manager's MultiKueueCluster worker-1 Active=True again", BOUND, async () => ((await multiKueueClusterActive(h.kube, worker.name))?.status === 'True' ? true : undefined));
      const tActive = Date.now() - t1;
      // Kueue has the cluster again, yet the Workload stays unnominated until it changes.
      const still = await workloadOf(h.kube, ns.name, ref!.uid);
      const unnominatedAfterReconnect = nominatedOf(still).length === 0 && still?.status?.clusterName === undefined;

      let ended: Outcome | Error | undefined;
      const watching = h.client.watch(ref).then(
        (o) => (ended = o),
        (error: Error) => (ended = error),
      );
      const outcome = await until('the Watch to end', BOUND + NUDGE_AFTER_MS, async () => ended);
      await watching;
      const tEnded = Date.now() - t1;
      const nudges = controller.counters.nudgeWrites;
      const wl = await workloadOf(h.kube, ns.name, ref!.uid);
      const dispatchEntry = (wl?.status?.admissionChecks ?? []).find((c) => c.state === 'Ready' && String(c.message).includes('written again'));
      console.log(
        `[mk-unnominated] checks ${JSON.stringify(stalled.states)} and no cluster nominated ${Date.now() - readyAt} ms after Open; worker-1 Active=True ${tActive} ms after its restart, ` +
          `the Workload still unnominated then: ${unnominatedAfterReconnect}; ${nudges} nudge write(s); the Watch ended ${tEnded} ms after the restart: ${JSON.stringify(outcome)}; the check's message: ${dispatchEntry?.message ?? 'none'}`,
      );
      expect(outcome).toMatchObject({ ref, phase: 'Succeeded', cluster: worker.name });
      expect(nudges).toBeGreaterThanOrEqual(1);
      expect(wl?.status?.clusterName).toBe(worker.name);
    } finally {
      stopController.abort();
      await Promise.all([controlling, keeping]);
      if (!worker.cluster.apiServer.running) await worker.cluster.apiServer.start();
      if (ref) await h.client.stop(ref).catch(() => undefined);
      await h.close();
    }
  }, TEST_TIMEOUT);
});
