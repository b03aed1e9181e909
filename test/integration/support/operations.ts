// What a test reads while a TrainJob runs on the real controllers after Start and Open (the real
// Trainer, JobSet, Job controller, scheduler and KWOK run it; in Kueue mode the worker's admission
// check controller sets the check Ready): its Workload, its end, its pods; and the Kueue-mode
// worker configuration on the harness's sample queues.
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { KUEUE_SAMPLE_CHECK, KUEUE_SAMPLE_QUEUE } from '../../../dev/harness/samples.js';
import type { KubeClients } from '../../../src/kube/clients.js';
import { Kueue, Labels, Trainer } from '../../../src/model/constants.js';
import type { TrainJob, Workload } from '../../../src/model/kube.js';

export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const trainJobAt = (namespace: string, name: string) => ({
  group: Trainer.group,
  version: Trainer.version,
  plural: Trainer.trainJobPlural,
  namespace,
  name,
});

export async function workloadOf(kube: KubeClients, namespace: string, uid: string): Promise<Workload | undefined> {
  const list = (await kube.custom.listNamespacedCustomObject({
    group: Kueue.group,
    version: 'v1beta2',
    namespace,
    plural: Kueue.workloadPlural,
    labelSelector: `${Labels.kueueJobUid}=${uid}`,
  })) as { items: Workload[] };
  return list.items[0];
}

const condition = (obj: { status?: { conditions?: { type: string; status: string }[] } } | undefined, type: string) =>
  obj?.status?.conditions?.find((c) => c.type === type)?.status === 'True';

/** Waits for the TrainJob's Complete (or Failed) condition; returns which. */
export async function finished(kube: KubeClients, namespace: string, name: string, timeoutMs = 90_000): Promise<'Complete' | 'Failed'> {
  return until(`TrainJob ${namespace}/${name} to finish`, timeoutMs, async () => {
    const job = (await kube.custom.getNamespacedCustomObject(trainJobAt(namespace, name))) as TrainJob & {
      status?: { conditions?: { type: string; status: string }[] };
    };
    if (condition(job, 'Complete')) return 'Complete' as const;
    if (condition(job, 'Failed')) return 'Failed' as const;
    return undefined;
  });
}

/** The pods of a job, found by the job-id label dispatch's runtime patch puts on every pod. */
export async function podsOfJob(kubeConfig: KubeConfig, namespace: string, jobId: string) {
  const pods = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: `${Labels.jobId}=${jobId.toLowerCase()}` });
  return pods.items.map((p) => ({ name: p.metadata?.name ?? '', node: p.spec?.nodeName ?? '', phase: p.status?.phase ?? '' }));
}

/** A worker configuration for Kueue-mode Starts on the real Kueue and the harness's sample queues. */
export const REAL_KUEUE_CONFIG = {
  mode: 'kueue',
  kueue: { queue: KUEUE_SAMPLE_QUEUE, admissionCheck: KUEUE_SAMPLE_CHECK },
  timeouts: { workload: '30s', call: '10s' },
} as const;

/**
 * A ClusterQueue `clusterQueue` for `namespace` alone, with room for one 16-GPU job and the one
 * admission check `admissionCheck`, and its LocalQueue `localQueue` in the namespace. The caller
 * deletes the ClusterQueue (cluster-scoped) in its afterAll.
 */
export async function createOneJobQueue(
  kc: KubeConfig,
  queue: { namespace: string; clusterQueue: string; localQueue: string; admissionCheck: string },
): Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const at = { group: Kueue.group, version: 'v1beta2' };
  const apiVersion = `${Kueue.group}/v1beta2`;
  await api.createClusterCustomObject({
    ...at,
    plural: 'clusterqueues',
    body: {
      apiVersion,
      kind: 'ClusterQueue',
      metadata: { name: queue.clusterQueue },
      spec: {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': queue.namespace } },
        admissionChecksStrategy: { admissionChecks: [{ name: queue.admissionCheck }] },
        resourceGroups: [
          {
            coveredResources: ['cpu', 'memory', 'nvidia.com/gpu'],
            flavors: [
              {
                name: 'default-flavor',
                resources: [
                  { name: 'cpu', nominalQuota: '128' },
                  { name: 'memory', nominalQuota: '1Ti' },
                  { name: 'nvidia.com/gpu', nominalQuota: '16' },
                ],
              },
            ],
          },
        ],
      },
    },
  });
  await api.createNamespacedCustomObject({
    ...at,
    namespace: queue.namespace,
    plural: 'localqueues',
    body: { apiVersion, kind: 'LocalQueue', metadata: { name: queue.localQueue }, spec: { clusterQueue: queue.clusterQueue } },
  });
}
