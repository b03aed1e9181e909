// The Kubernetes clients a worker builds from its configuration: the manager cluster's (the only
// cluster without MultiKueue) and, with kueue.multiKueue (Kueue mode only), each worker cluster's,
// by the name Kueue reports for it, which step 5 and Start's undo make and remove copies on
// (docs/multikueue.md).
import { workerClustersOf } from '../core/start/worker-copies.js';
import { createKubeClients, createWorkerClusterClients, loadKubeConfig, type KubeClients, type WorkerClusterClients } from '../kube/clients.js';
import type { Config } from '../model/config.js';

export interface ClusterClientOptions {
  /** Overrides config.kubeconfig (tests point it at the fault proxy). */
  kubeconfigPath?: string;
  /** Overrides the worker clusters' clients, by name (default: each from its kubeconfig). */
  workerClusters?: WorkerClusterClients;
}

export function clusterClients(config: Config, options: ClusterClientOptions = {}): { kube: KubeClients; workerClusters: WorkerClusterClients } {
  return {
    kube: createKubeClients(loadKubeConfig(options.kubeconfigPath ?? config.kubeconfig)),
    workerClusters: options.workerClusters ?? createWorkerClusterClients(workerClustersOf(config)),
  };
}
