// A worker cluster lost while its job runs, on two real clusters (docs/contract.md §11: "a worker
// cluster that goes away while its job runs is reported in the Watch's details and ends as Kueue
// ends it ... never silently"; docs/multikueue.md, "A worker cluster lost while its job runs").
// The worker cluster's kube-apiserver is stopped while a Watch follows a job running there: the
// manager's Kueue marks its MultiKueueCluster Active=False, and the Watch (its progress query and
// current details) and Open's TrainJobState must say so, well before the Watch's recheck (the
// MultiKueueCluster's change wakes it), and the Watch must not end. The API server
// is then started again, and the Watch must end with the Outcome the manager's TrainJob reaches.
import { afterAll, describe, expect, it } from 'vitest';
import { PROGRESS_QUERY, operationWorkflowId } from '../../../src/contract/names.js';
import { kubeConfigFor } from '../../../dev/harness/kube-access.js';
import { adminAccess } from '../../../dev/harness/cluster.js';
import { Labels } from '../../../src/model/constants.js';
import type { Outcome, TrainJobRef } from '../../../src/model/operations.js';
import type { OperationProgress } from '../../../src/workflows/operation-progress.js';
import { startRequest } from '../../support/requests.js';
import { refOf, runFor } from '../operations/support.js';
import { startDispatch } from '../support/dispatch.js';
import type { TestNamespace } from '../support/kube.js';
import { multiKueueClusterActive, multiKueueConfig, multiKueueNamespace, multiKueueStack } from '../support/multikueue.js';
import { until } from '../support/operations.js';
import { runtimeFixtures } from '../support/runtimes.js';
import { CoreV1Api } from '@kubernetes/client-node';

/** Generous bounds for events: a loaded two-core machine runs two clusters and Temporal here. */
const BOUND = 120_000;
/**
 * The Watch's report of the loss, counted from the worker cluster's stop: the worker's waker reads
 * the MultiKueueCluster every 5 s and wakes the Watch when its Active condition changes
 * (src/worker/worker-cluster-wakes.ts); far below the recheck, so only the wake can bring it.
 */
const REPORT_BOUND = 30_000;
/** The Watch's recheck here (the default): the longest it goes without reading its TrainJob again. */
const RECHECK = '15m';
const TEST_TIMEOUT = 600_000;

const stack = multiKueueStack(1);
const namespaces: TestNamespace[] = [];
afterAll(async () => {
  await Promise.all(namespaces.map((ns) => ns.dispose()));
});

const LOST = /^worker cluster worker-1 lost: MultiKueueCluster worker-1 Active=False \(\w+.*\): Kueue requeues or fails the job after its workerLostTimeout$/;

describe('MultiKueue: a worker cluster lost while its job runs', () => {
  it("is reported by the Watch (progress, current details) and by Open's state, never ends the Watch, and the Watch ends with the Outcome once the cluster is back", async () => {
    const { info, workerClusters } = stack();
    const worker = workerClusters![0]!;
    const workerInfo = info.workers![0]!;
    expect(worker.name).toBe(workerInfo.name);
    const ns = await multiKueueNamespace(info, 'mk-lost');
    namespaces.push(ns);
    const config = multiKueueConfig(workerInfo, { workload: '30s', call: '10s', watchRecheck: RECHECK });
    const h = await startDispatch({ namespace: ns.name, cluster: info.kube, config });
    let ref: TrainJobRef | undefined;
    try {
      // Long enough to outlive the outage: KWOK (on the worker) cannot end the pod while its API server is away.
      const runtime = await runtimeFixtures(h.kube).namespaced(ns.name, 'lost', runFor('60s'));
      const request = startRequest({ runtime });
      ref = refOf(await h.client.startTrainJob(request));
      await h.client.open(ref);
      const workerCore = kubeConfigFor(adminAccess(workerInfo.kube)).makeApiClient(CoreV1Api);
      await until('a pod of the job running on the worker cluster', BOUND, async () => {
        const pods = await workerCore.listNamespacedPod({ namespace: ns.name, labelSelector: `${Labels.jobId}=${request.job.toLowerCase()}` });
        return pods.items.some((p) => p.status?.phase === 'Running') ? true : undefined;
      });

      let ended: Outcome | Error | undefined;
      const watching = h.client.watch(ref).then(
        (outcome) => (ended = outcome),
        (error: Error) => (ended = error),
      );
      const handle = h.env.client.workflow.getHandle(operationWorkflowId('watch', ref));
      const progress = () => handle.query<OperationProgress>(PROGRESS_QUERY).catch(() => undefined);
      const details = async () => (await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata').catch(() => undefined))?.currentDetails ?? '';
      await until('the Watch to show the job Running on worker-1, with no note', BOUND, async () => {
        const shown = await progress();
        return shown?.phase === 'Running' && !shown.reasons?.[0]?.startsWith('worker cluster') ? shown : undefined;
      });

      // The worker cluster goes away: its API server stops (its etcd, controllers and KWOK stay).
      const t0 = Date.now();
      await worker.cluster.apiServer.stop(1_000);
      const inactive = await until("the manager's MultiKueueCluster worker-1 Active=False", BOUND, async () => {
        const active = await multiKueueClusterActive(h.kube, worker.name);
        return active?.status === 'False' ? active : undefined;
      });
      const tInactive = Date.now() - t0;
      const shown = await until("the Watch's progress to report the lost worker cluster", REPORT_BOUND, async () => {
        const p = await progress();
        return p?.reasons?.[0] !== undefined && LOST.test(p.reasons[0]) ? p : undefined;
      });
      const tReported = Date.now() - t0;
      expect(tReported).toBeLessThan(REPORT_BOUND);
      expect(shown).toMatchObject({ operation: 'watch', phase: 'Running' });
      expect(shown.reasons![0]).toContain(`Active=False (${inactive.reason}`);
      // The current details (the Temporal UI) show the first reason beside the phase.
      expect(await details()).toMatch(/Phase: Running \(worker cluster worker-1 lost: MultiKueueCluster worker-1 Active=False/);
      // Open answers the state with the same note (it changes nothing: the job is opened already).
      const opened = await h.client.open(ref);
      expect(opened).toMatchObject({ ref, phase: 'Running', cluster: worker.name });
      expect(opened.reasons[0]).toMatch(LOST);
      // Kueue has not ended the job (its workerLostTimeout is 15 minutes), so neither has the Watch.
      expect(ended).toBeUndefined();
      console.log(
        `[mk-lost] worker-1's API server stopped: MultiKueueCluster Active=False after ${tInactive} ms (${inactive.reason}: ${inactive.message}); the Watch reported it after ${tReported} ms: ${shown.reasons![0]}`,
      );

      // The worker cluster comes back.
      const t1 = Date.now();
      await worker.cluster.apiServer.start();
      await until("the manager's MultiKueueCluster worker-1 Active=True again", BOUND, async () =>
        (await multiKueueClusterActive(h.kube, worker.name))?.status === 'True' ? true : undefined,
      );
      const tActive = Date.now() - t1;
      expect(ended).toBeUndefined();
      // As the real Kueue behaves within its workerLostTimeout: the job goes on on worker-1 and
      // completes there, MultiKueue copies the status back, and the Watch ends with that Outcome.
      await until('the Watch to end', BOUND + 60_000, async () => (ended !== undefined ? true : undefined));
      await watching;
      const tEnded = Date.now() - t1;
      console.log(`[mk-lost] worker-1's API server started again: Active=True after ${tActive} ms; the Watch ended after ${tEnded} ms with ${JSON.stringify(ended)}`);
      expect(ended).toMatchObject({ ref, phase: 'Succeeded', cluster: worker.name });
      const last = await progress();
      expect(last?.reasons?.some((r) => r.startsWith('worker cluster'))).toBe(false);
    } finally {
      if (!worker.cluster.apiServer.running) await worker.cluster.apiServer.start();
      if (ref) await h.client.stop(ref).catch(() => undefined);
      await h.close();
    }
  }, TEST_TIMEOUT);
});

