// The Kubernetes clients the activities share, built once per worker from the configuration:
// an explicit kubeconfig path, else KUBECONFIG / ~/.kube/config, else the in-cluster service account.
import { AuthorizationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, VersionApi, Watch } from '@kubernetes/client-node';
import { reuseConnections } from './agents.js';

export interface KubeClients {
  custom: CustomObjectsApi;
  /** Pods only: Watch reads a failed job's exit code from them. */
  core: CoreV1Api;
  authorization: AuthorizationV1Api;
  version: VersionApi;
  /** Watches for the checks' feeds (watched-lists.ts); absent, the checks list every time. */
  watch?: Watch;
  /** The API server's address, for messages. */
  server: string;
}

export function loadKubeConfig(kubeconfigPath: string): KubeConfig {
  const kc = new KubeConfig();
  if (kubeconfigPath) kc.loadFromFile(kubeconfigPath);
  else kc.loadFromDefault();
  return kc;
}

export function createKubeClients(kc: KubeConfig): KubeClients {
  reuseConnections(kc);
  return {
    custom: kc.makeApiClient(CustomObjectsApi),
    core: kc.makeApiClient(CoreV1Api),
    authorization: kc.makeApiClient(AuthorizationV1Api),
    version: kc.makeApiClient(VersionApi),
    watch: new Watch(kc),
    server: kc.getCurrentCluster()?.server ?? '(unknown)',
  };
}

/** The clients of Kueue's MultiKueue worker clusters, by the name Kueue reports for each (docs/multikueue.md). */
export type WorkerClusterClients = ReadonlyMap<string, KubeClients>;

/**
 * One set of clients per worker cluster, each reached by its own kubeconfig file (required: the
 * defaults reach the manager cluster). `load` reads a kubeconfig (tests give their own).
 */
export function createWorkerClusterClients(
  clusters: readonly { name: string; kubeconfig: string }[],
  load: (path: string) => KubeConfig = loadKubeConfig,
): WorkerClusterClients {
  return new Map(clusters.map((cluster) => [cluster.name, createKubeClients(load(cluster.kubeconfig))]));
}
