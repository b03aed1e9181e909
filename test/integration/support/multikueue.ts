// The two-cluster stack for MultiKueue tests (docs/multikueue.md): a test file that needs it
// starts its own (startTestStack with `multiKueue`: a manager cluster, its worker clusters and a
// Temporal server) beside the run's shared one, since the shared cluster's ClusterQueue must stay
// without MultiKueue's check; and namespaces that exist with the sample LocalQueue on every cluster.
import { afterAll, beforeAll } from 'vitest';
import { adminAccess } from '../../../dev/harness/cluster.js';
import { kubeCall, type KubeAccess } from '../../../dev/harness/kube-access.js';
import { addMultiKueueNamespace, untilLocalQueueSeen } from '../../../dev/harness/multikueue.js';
import { KUEUE_SAMPLE_CHECK, KUEUE_SAMPLE_QUEUE } from '../../../dev/harness/samples.js';
import type { WorkerClusterInfo } from '../../../dev/harness/multikueue.js';
import type { ConfigInput } from '../../../src/model/config.js';
import { conditionOf } from '../../../src/core/objects/conditions.js';
import type { KubeClients } from '../../../src/kube/clients.js';
import { Kueue } from '../../../src/model/constants.js';
import type { KubeObject } from '../../../src/model/kube.js';
import { startTestStack, type Stack, type StackInfo } from '../../../dev/harness/stack.js';
import { uniqueName, type TestNamespace } from './kube.js';

/**
 * Registers beforeAll/afterAll that start and stop a MultiKueue stack of `workers` worker
 * clusters; `stack()` answers it once beforeAll has run. Its start takes about half a minute.
 */
export function multiKueueStack(workers = 1): () => Stack {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startTestStack({ multiKueue: { workers } });
  }, 300_000);
  afterAll(async () => {
    await stack?.stop();
  }, 120_000);
  return () => {
    if (!stack) throw new Error('the MultiKueue stack is not up: multiKueueStack() starts it in beforeAll');
    return stack;
  };
}

/** The admin access of the manager (`kube`) and of each worker, in StackInfo.workers order. */
export function clusterAccess(info: StackInfo): { manager: KubeAccess; workers: KubeAccess[] } {
  return { manager: adminAccess(info.kube), workers: (info.workers ?? []).map((w) => adminAccess(w.kube)) };
}

/**
 * A fresh namespace `<prefix>-<random>` on the manager and on every worker, with the sample
 * LocalQueue on each (the manager's ClusterQueue lists the checks; the workers' list none).
 */
export async function multiKueueNamespace(info: StackInfo, prefix: string): Promise<TestNamespace> {
  const name = uniqueName(prefix);
  const { manager, workers } = clusterAccess(info);
  await kubeCall(manager, 'POST', '/api/v1/namespaces', { metadata: { name, labels: { 'dispatch-kubeflow/test': 'true' } } });
  await addMultiKueueNamespace(manager, info.workers ?? [], name);
  await untilLocalQueueSeen([manager, ...workers], name);
  return {
    name,
    dispose: async () => {
      await Promise.all([manager, ...workers].map((access) => kubeCall(access, 'DELETE', `/api/v1/namespaces/${name}`).catch(() => undefined)));
    },
  };
}

/**
 * A dispatch worker's configuration on the MultiKueue stack: Kueue mode on the sample queue and
 * check, with `worker` as its one worker cluster (its admin kubeconfig, or `kubeconfig`).
 */
export function multiKueueConfig(worker: WorkerClusterInfo, timeouts: NonNullable<ConfigInput['timeouts']>, kubeconfig?: string): Omit<ConfigInput, 'namespace'> {
  return {
    mode: 'kueue',
    kueue: {
      queue: KUEUE_SAMPLE_QUEUE,
      admissionCheck: KUEUE_SAMPLE_CHECK,
      multiKueue: { clusters: [{ name: worker.name, kubeconfig: kubeconfig ?? worker.kube.kubeconfig }] },
    },
    timeouts,
  };
}

/** The manager's MultiKueueCluster `name`: its Active condition (status, reason, message), as Kueue keeps it. */
export async function multiKueueClusterActive(manager: KubeClients, name: string): Promise<{ status: string; reason: string; message: string } | undefined> {
  const found = (await manager.custom.getClusterCustomObject({ group: Kueue.group, version: 'v1beta2', plural: 'multikueueclusters', name })) as KubeObject;
  const active = conditionOf(found, 'Active');
  return active ? { status: String(active.status), reason: String(active.reason ?? ''), message: String(active.message ?? '') } : undefined;
}
