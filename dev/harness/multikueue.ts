// MultiKueue on the local stack (docs/multikueue.md): the cluster dev:up and the tests already run
// is the manager; each worker is a second complete cluster (startCluster: its own etcd, API
// server, controller manager, scheduler, KWOK nodes, and the real JobSet, Trainer and Kueue with
// their webhooks). The manager's Kueue (v0.19.2) is configured as its API says: a Secret holding
// the worker's kubeconfig in the namespace of Kueue's configuration, a MultiKueueCluster naming
// it, a MultiKueueConfig listing the clusters, and an AdmissionCheck of controller
// `kueue.x-k8s.io/multikueue` on the sample ClusterQueue beside dispatch's own check. Each worker
// has the manager's queue names (flavor, ClusterQueue, LocalQueue per namespace), without any
// admission check, so that its own Kueue admits the copies MultiKueue makes there.
import { join } from 'node:path';
import type { KubeObject } from '../../src/model/kube.js';
import { adminAccess, startCluster, type ClusterInfo, type ClusterOptions, type ClusterTimings, type LocalCluster } from './cluster.js';
import type { KueueSettings } from './controllers.js';
import { kubeCall, kubeconfigYaml, kubeRequest, type KubeAccess } from './kube-access.js';
import { sleep, waitFor } from './process.js';
import { applySamples, FIELD_MANAGER, KUEUE_SAMPLE_CHECK, KUEUE_SAMPLE_CLUSTER_QUEUE, KUEUE_SAMPLE_QUEUE, kueueObjectPath, kueueSamplesDir, readSamples } from './samples.js';

const KUEUE_API = '/apis/kueue.x-k8s.io/v1beta2';

/** The names the manager's MultiKueue objects take. */
export const MultiKueueNames = {
  /**
   * The namespace of the manager Kueue's configuration (`namespace`), where it reads each
   * MultiKueueCluster's kubeconfig Secret (multikueuecluster.go, getKubeConfigFromSecret). Kueue
   * defaults it to its pod's service-account namespace, else `kueue-system`; the harness's Kueue
   * runs outside the cluster, so its configuration states it.
   */
  secretNamespace: 'kueue-system',
  /** The AdmissionCheck of controller kueue.x-k8s.io/multikueue. */
  admissionCheck: 'multikueue',
  controllerName: 'kueue.x-k8s.io/multikueue',
  /** The MultiKueueConfig the AdmissionCheck's parameters name. */
  config: 'dispatch-workers',
  /** Worker i's MultiKueueCluster and cluster name (Workload status.clusterName), from 1. */
  worker: (i: number) => `worker-${i}`,
  /** Its kubeconfig Secret in secretNamespace. */
  secret: (i: number) => `worker-${i}-kubeconfig`,
} as const;

/**
 * The manager Kueue's additions: its namespace stated (the Secrets' namespace) and the
 * `multiKueue` section with Kueue's own defaults written out (v0.19.2 apis/config/v1beta2/
 * defaults.go). The MultiKueue feature gate is Beta and on by default since v0.9, the TrainJob
 * adapter is built in (trainjob_multikueue_adapter.go, no MultiKueueAdaptersForCustomJobs needed);
 * the gate is stated anyway so that the configuration says what it relies on.
 */
export const MULTIKUEUE_MANAGER_KUEUE: KueueSettings = {
  config: {
    namespace: MultiKueueNames.secretNamespace,
    multiKueue: {
      gcInterval: '1m0s',
      origin: 'multikueue',
      workerLostTimeout: '15m0s',
      dispatcherName: 'kueue.x-k8s.io/multikueue-dispatcher-all-at-once',
    },
  },
  featureGates: { MultiKueue: true },
};

/** A worker cluster of the stack: plain data. */
export interface WorkerClusterInfo {
  /** Its MultiKueueCluster's name, which Kueue writes into the Workload's status.clusterName. */
  name: string;
  kube: ClusterInfo;
  timings: ClusterTimings;
}

/** How the manager reaches its workers (StackInfo.multiKueue). */
export interface MultiKueueInfo {
  admissionCheck: string;
  config: string;
  secretNamespace: string;
  /** The manager's ClusterQueue, which lists dispatch's check and MultiKueue's. */
  clusterQueue: string;
}

export const multiKueueInfo = (): MultiKueueInfo => ({
  admissionCheck: MultiKueueNames.admissionCheck,
  config: MultiKueueNames.config,
  secretNamespace: MultiKueueNames.secretNamespace,
  clusterQueue: KUEUE_SAMPLE_CLUSTER_QUEUE,
});

/**
 * Starts `count` worker clusters one after the other (two cores: in parallel they only slow each
 * other down), each in <stateDir>/worker-<i> with its logs in <logDir>/worker-<i>. On a failure,
 * the ones started are stopped.
 */
export async function startWorkers(
  count: number,
  options: Omit<ClusterOptions, 'stateDir' | 'logDir' | 'kueueSettings'> & { stateDir: string; logDir: string },
): Promise<{ name: string; cluster: LocalCluster }[]> {
  const workers: { name: string; cluster: LocalCluster }[] = [];
  try {
    for (let i = 1; i <= count; i++) {
      const name = MultiKueueNames.worker(i);
      const cluster = await startCluster({ ...options, stateDir: join(options.stateDir, name), logDir: join(options.logDir, name) });
      workers.push({ name, cluster });
    }
    return workers;
  } catch (err) {
    await Promise.all(workers.map((w) => w.cluster.stop()));
    throw err;
  }
}

const applyQuery = `fieldManager=${FIELD_MANAGER}&force=true&fieldValidation=Strict`;
const apply = (access: KubeAccess, path: string, obj: unknown) =>
  kubeCall(access, 'PATCH', `${path}?${applyQuery}`, obj, { contentType: 'application/apply-patch+yaml' });

/** The Kueue samples as a worker has them: the flavor and the ClusterQueue without admission checks; the LocalQueue per namespace (the same on the manager). */
async function workerKueueSamples(): Promise<{ clusterWide: KubeObject[]; perNamespace: KubeObject[] }> {
  const all = await readSamples(kueueSamplesDir);
  const clusterWide = all
    .filter((o) => o.kind === 'ResourceFlavor' || o.kind === 'ClusterQueue')
    .map((o) => {
      if (o.kind !== 'ClusterQueue') return o;
      const { admissionChecksStrategy: _checks, ...spec } = (o as { spec: Record<string, unknown> }).spec;
      return { ...o, spec };
    });
  return { clusterWide, perNamespace: all.filter((o) => o.kind === 'LocalQueue') };
}

/** The namespaces and the sample LocalQueue in each, on a worker (cluster-wide queues too, idempotently). */
export async function applyWorkerQueues(worker: KubeAccess, namespaces: string[]): Promise<string[]> {
  const { clusterWide, perNamespace } = await workerKueueSamples();
  for (const obj of clusterWide) await apply(worker, kueueObjectPath(obj), obj);
  for (const namespace of namespaces) {
    await apply(worker, `/api/v1/namespaces/${namespace}`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    for (const obj of perNamespace) await apply(worker, kueueObjectPath(obj, namespace), obj);
  }
  return [...clusterWide, ...perNamespace].map((o) => `${o.kind}/${o.metadata?.name}`);
}

/** The manager's sample ClusterQueue with MultiKueue's check after dispatch's. */
async function managerClusterQueue(): Promise<KubeObject> {
  const queue = (await readSamples(kueueSamplesDir)).find((o) => o.kind === 'ClusterQueue' && o.metadata?.name === KUEUE_SAMPLE_CLUSTER_QUEUE);
  if (!queue) throw new Error(`no ClusterQueue ${KUEUE_SAMPLE_CLUSTER_QUEUE} in ${kueueSamplesDir}`);
  const spec = (queue as { spec: Record<string, unknown> }).spec;
  return {
    ...queue,
    spec: { ...spec, admissionChecksStrategy: { admissionChecks: [{ name: KUEUE_SAMPLE_CHECK }, { name: MultiKueueNames.admissionCheck }] } },
  };
}

type Conditioned = { status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } };

/** An object's condition of `type`, or undefined (also when the object is not there). */
export async function conditionOf(access: KubeAccess, path: string, type: string) {
  const res = await kubeRequest(access, 'GET', path);
  if (res.status !== 200) return undefined;
  return (res.json as Conditioned).status?.conditions?.find((c) => c.type === type);
}

/** Waits until the object's condition `type` is True; the timeout names what was awaited and what was last seen. */
export async function untilConditionTrue(access: KubeAccess, path: string, type: string, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'nothing read yet';
  for (;;) {
    const c = await conditionOf(access, path, type).catch((err: unknown) => {
      last = `read failed: ${(err as Error).message}`;
      return undefined;
    });
    if (c) last = `${type} ${c.status} (${c.reason ?? ''}: ${c.message ?? ''})`;
    if (c?.status === 'True') return;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${last}`);
    await sleep(250);
  }
}

/**
 * Waits until Kueue at each of `accesses` has taken the sample LocalQueue of `namespace` into its
 * cache: its Active condition is written then, whatever its status. Kueue's webhook sets
 * MultiKueue's managedBy only for a LocalQueue its cache knows (jobframework
 * ApplyDefaultForManagedBy): a TrainJob made before that would run on the manager.
 */
export async function untilLocalQueueSeen(accesses: KubeAccess[], namespace: string, timeoutMs = 120_000): Promise<void> {
  for (const access of accesses) {
    const path = `/apis/kueue.x-k8s.io/v1beta2/namespaces/${namespace}/localqueues/${KUEUE_SAMPLE_QUEUE}`;
    await waitFor(async () => ((await conditionOf(access, path, 'Active')) ? true : undefined), {
      what: `LocalQueue ${namespace}/${KUEUE_SAMPLE_QUEUE} seen by Kueue at ${access.server} (its Active condition written)`,
      timeoutMs,
      intervalMs: 200,
    });
  }
}

/**
 * Connects the workers to the manager: per worker its queues, the sample runtimes, the kubeconfig
 * Secret (the worker's admin, token and CA data inline: Kueue refuses token and CA files) and the
 * MultiKueueCluster; then the MultiKueueConfig, the AdmissionCheck and the ClusterQueue listing
 * both checks. Resolves once every MultiKueueCluster and the AdmissionCheck are Active.
 */
export async function connectWorkers(
  manager: KubeAccess,
  workers: { name: string; kube: ClusterInfo }[],
  options: { namespaces: string[]; timeoutMs?: number },
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const ns = MultiKueueNames.secretNamespace;
  await apply(manager, `/api/v1/namespaces/${ns}`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const [index, worker] of workers.entries()) {
    const access = adminAccess(worker.kube);
    await applyWorkerQueues(access, options.namespaces);
    await applySamples(access);
    const secret = MultiKueueNames.secret(index + 1);
    await apply(manager, `/api/v1/namespaces/${ns}/secrets/${secret}`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secret, namespace: ns },
      stringData: { kubeconfig: kubeconfigYaml(access) },
    });
    await apply(manager, `${KUEUE_API}/multikueueclusters/${worker.name}`, {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'MultiKueueCluster',
      metadata: { name: worker.name },
      spec: { clusterSource: { kubeConfig: { locationType: 'Secret', location: secret } } },
    });
  }
  await apply(manager, `${KUEUE_API}/multikueueconfigs/${MultiKueueNames.config}`, {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'MultiKueueConfig',
    metadata: { name: MultiKueueNames.config },
    spec: { clusters: workers.map((w) => w.name) },
  });
  await apply(manager, `${KUEUE_API}/admissionchecks/${MultiKueueNames.admissionCheck}`, {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'AdmissionCheck',
    metadata: { name: MultiKueueNames.admissionCheck },
    spec: {
      controllerName: MultiKueueNames.controllerName,
      parameters: { apiGroup: 'kueue.x-k8s.io', kind: 'MultiKueueConfig', name: MultiKueueNames.config },
    },
  });
  const queue = await managerClusterQueue();
  await apply(manager, kueueObjectPath(queue), queue);
  for (const worker of workers) {
    await untilConditionTrue(manager, `${KUEUE_API}/multikueueclusters/${worker.name}`, 'Active', `MultiKueueCluster ${worker.name} Active`, timeoutMs);
  }
  await untilConditionTrue(manager, `${KUEUE_API}/admissionchecks/${MultiKueueNames.admissionCheck}`, 'Active', `AdmissionCheck ${MultiKueueNames.admissionCheck} Active`, timeoutMs);
}

/**
 * Makes `namespace` usable for MultiKueue: the sample LocalQueue in it on the manager, and the
 * namespace with its LocalQueue on every worker, which MultiKueue needs to create its copies
 * there. Only the LocalQueue on the manager: applyKueueSamples would apply the sample ClusterQueue
 * again, with dispatch's check alone, and so take MultiKueue's check off it.
 */
export async function addMultiKueueNamespace(manager: KubeAccess, workers: { kube: ClusterInfo }[], namespace: string): Promise<void> {
  const { perNamespace } = await workerKueueSamples();
  for (const obj of perNamespace) await apply(manager, kueueObjectPath(obj, namespace), obj);
  for (const worker of workers) await applyWorkerQueues(adminAccess(worker.kube), [namespace]);
}
