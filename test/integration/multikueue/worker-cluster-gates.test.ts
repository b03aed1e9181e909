// The backend gates with a MultiKueue worker cluster, on two real clusters (docs/contract.md §8, §8a;
// docs/multikueue.md, "The backend gates and the worker clusters"): the preflight reviews, with the
// worker cluster's own identity, what Start and the collector need there. A denial there refuses the
// write gate (definite: Starts ErrReadOnly at step 1); a worker cluster whose API server is down
// leaves it unknown (Starts wait, then ErrUnreachable); either is named in /readyz's backend details
// and the gauge dispatch_worker_cluster_gate_proven, and the next preflight proves it again once fixed.
// Its API server down also takes down the worker's watch of its pods: dispatch_worker_cluster_pod_feed_in_step.
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { adminAccess } from '../../../dev/harness/cluster.js';
import { Identities } from '../../../dev/harness/credentials.js';
import { kubeConfigFor } from '../../../dev/harness/kube-access.js';
import { backendHealth } from '../../../src/core/health.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { BackendGates } from '../../../src/model/results.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import type { TestNamespace } from '../support/kube.js';
import { multiKueueConfig, multiKueueNamespace, multiKueueStack } from '../support/multikueue.js';
import { until } from '../support/operations.js';

const TEST_TIMEOUT = 300_000;
/** timeouts.call: how long a Start waits at step 1 for definite gates, and how long a review is retried. */
const CALL = '5s';

const stack = multiKueueStack(1);
const namespaces: TestNamespace[] = [];
afterAll(async () => {
  await Promise.all(namespaces.map((ns) => ns.dispose()));
});

const series = async (h: DispatchHarness, metric: string) =>
  (await h.worker.metrics.registry.getSingleMetric(metric)!.get()).values.map((v) => ({ cluster: v.labels.cluster, value: v.value }));
const gauge = (h: DispatchHarness) => series(h, 'dispatch_worker_cluster_gate_proven');

/** Waits (bounded) until dispatch_worker_cluster_pod_feed_in_step of `cluster` is `value`. */
const untilPodFeed = (h: DispatchHarness, cluster: string, value: 0 | 1, when: string) =>
  until(`the pod feed of ${cluster} to be ${value ? 'in step' : 'down'} ${when}`, 120_000, async () => {
    const [found] = await series(h, 'dispatch_worker_cluster_pod_feed_in_step');
    return found?.cluster === cluster && found.value === value ? true : undefined;
  });

/** Runs preflights until one proves every gate (bounded), and checks it proved them with no reason. */
async function untilProven(h: DispatchHarness, when: string): Promise<void> {
  const proven = await until(`a preflight to prove every gate ${when}`, 120_000, async () => {
    const gates = await h.worker.preflight();
    return gates.start ? gates : undefined;
  });
  expect(proven).toMatchObject({ reach: true, write: true, start: true, reasons: [] });
}

async function refusal(start: Promise<unknown>): Promise<DispatchError> {
  const error = await start.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DispatchError);
  return error as DispatchError;
}

describe('the backend gates with a MultiKueue worker cluster', () => {
  it("an identity there that may not create or delete trainingruntimes: the write gate refused (definite), naming the cluster; Starts ErrReadOnly; once granted, proven", async () => {
    const info = stack().info;
    const worker = info.workers![0]!;
    const ns = await multiKueueNamespace(info, 'mk-gate-rbac');
    namespaces.push(ns);
    // The harness's restricted identity: get, list and watch of TrainingRuntimes, nothing more.
    const config = multiKueueConfig(worker, { workload: '30s', call: CALL }, worker.kube.restrictedKubeconfig);
    const h = await startDispatch({ namespace: ns.name, cluster: info.kube, config, gates: 'none' });
    try {
      const refused: BackendGates = await h.worker.preflight();
      expect(refused).toMatchObject({ reach: true, write: false, start: false });
      expect(refused.writeUnknown).toBeUndefined();
      expect(refused.reasons).toEqual([
        `write: worker cluster ${worker.name}: not allowed to create trainingruntimes in namespace ${ns.name}`,
        `write: worker cluster ${worker.name}: not allowed to delete trainingruntimes in namespace ${ns.name}`,
      ]);
      // What /readyz's body reports as the backend (readiness itself is Temporal's: §10).
      expect(backendHealth({ gates: h.worker.gates.latestGates(), sinceStartMs: 0 }).reasons).toContain(
        `gates: write: worker cluster ${worker.name}: not allowed to create trainingruntimes in namespace ${ns.name}`,
      );
      expect(await gauge(h)).toEqual([{ cluster: worker.name, value: 0 }]);
      const error = await refusal(h.client.startTrainJob(startRequest()));
      expect(error.type).toBe('ErrReadOnly');
      expect(error.step).toBe(1);
      expect(error.reasons.join('\n')).toContain(`worker cluster ${worker.name}: not allowed to create trainingruntimes`);

      // Granted there (a Role in the namespace, as deploy/kubernetes/multikueue-worker-rbac.yaml does), the next preflight proves every gate.
      const rbac = kubeConfigFor(adminAccess(worker.kube)).makeApiClient(RbacAuthorizationV1Api);
      const name = 'dispatch-worker-cluster';
      await rbac.createNamespacedRole({
        namespace: ns.name,
        body: { metadata: { name }, rules: [{ apiGroups: ['trainer.kubeflow.org'], resources: ['trainingruntimes'], verbs: ['create', 'get', 'delete', 'list'] }] },
      });
      await rbac.createNamespacedRoleBinding({
        namespace: ns.name,
        body: {
          metadata: { name },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: Identities.restricted.user }],
        },
      });
      // RBAC's cache takes the grant in within moments; bounded.
      await untilProven(h, 'once granted');
      expect(await gauge(h)).toEqual([{ cluster: worker.name, value: 1 }]);
    } finally {
      await h.close();
    }
  }, TEST_TIMEOUT);

  it("a worker cluster whose API server is down: the write gate unknown, naming it; a Start waits timeouts.call and is ErrUnreachable; back up, the next preflight proves it", async () => {
    const { info, workerClusters } = stack();
    const worker = info.workers![0]!;
    const control = workerClusters![0]!.cluster;
    const ns = await multiKueueNamespace(info, 'mk-gate-down');
    namespaces.push(ns);
    const h = await startDispatch({ namespace: ns.name, cluster: info.kube, config: multiKueueConfig(worker, { workload: '30s', call: CALL }), gates: 'none' });
    try {
      expect(await h.worker.preflight()).toMatchObject({ reach: true, write: true, start: true, reasons: [] });
      await untilPodFeed(h, worker.name, 1, 'before the stop');
      await control.apiServer.stop(1_000);
      // The worker's watch of that cluster's pods is down, and says so (its exit codes are not heard meanwhile).
      await untilPodFeed(h, worker.name, 0, 'once its API server is stopped');
      const silent = await h.worker.preflight();
      expect(silent).toMatchObject({ reach: true, write: false, start: false, writeUnknown: true });
      expect(silent.reasons.join('\n')).toMatch(new RegExp(`^write: .*worker cluster ${worker.name}: review create trainingruntimes in namespace ${ns.name}: no answer from the Kubernetes API`, 'm'));
      expect(await gauge(h)).toEqual([{ cluster: worker.name, value: 0 }]);
      const t0 = Date.now();
      const error = await refusal(h.client.startTrainJob(startRequest()));
      const waitedMs = Date.now() - t0;
      expect(error.type).toBe('ErrUnreachable');
      expect(error.step).toBe(1);
      expect(error.reasons.join('\n')).toContain(`worker cluster ${worker.name}`);
      // It waited for a definite answer (§8a) before refusing: about timeouts.call.
      expect(waitedMs).toBeGreaterThanOrEqual(4_500);
      console.log(`[mk-gates] worker cluster down: preflight ${JSON.stringify(silent)}; a Start refused after ${waitedMs} ms: ${error.reasons.join('; ')}`);

      await control.apiServer.start();
      await untilProven(h, 'once the API server is back');
      expect(await gauge(h)).toEqual([{ cluster: worker.name, value: 1 }]);
      await untilPodFeed(h, worker.name, 1, 'once its API server is back');
    } finally {
      if (!control.apiServer.running) await control.apiServer.start();
      await h.close();
    }
  }, TEST_TIMEOUT);
});
