// The Kubernetes clients a worker builds from its configuration: the manager cluster's (the only
// cluster without MultiKueue) and, with kueue.multiKueue (Kueue mode only), each worker cluster's,
// by the name Kueue reports for it, which step 5 and Start's undo make and remove copies on, with
// the collector of the copies left there and the watch of the pods there that remembers their
// exit codes for Watch (docs/multikueue.md).
import { workerClustersOf } from '../core/start/worker-copies.js';
import { createKubeClients, createWorkerClusterClients, loadKubeConfig, type KubeClients, type WorkerClusterClients } from '../kube/clients.js';
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { log } from '../observability/log.js';
import { createCopyCollector, type CopyCollector } from './copy-collector.js';
import { EXIT_CODE_MEMORY_MIN_MS, ExitCodeMemory } from './exit-code-memory.js';
import { createWorkerPodWatch, type WorkerPodWatch } from './worker-pod-watch.js';

export interface ClusterClientOptions {
  /** Overrides config.kubeconfig (tests point it at the fault proxy). */
  kubeconfigPath?: string;
  /** Overrides the worker clusters' clients, by name (default: each from its kubeconfig). */
  workerClusters?: WorkerClusterClients;
}

export interface ClusterClients {
  kube: KubeClients;
  workerClusters: WorkerClusterClients;
  /** With worker clusters: the collector of the copies left on them, which the worker runs. */
  copyCollector?: CopyCollector;
  /** With worker clusters: what this worker remembers of the failed node containers there (Watch reads it)... */
  exitCodes?: ExitCodeMemory;
  /** ...fed by this watch of their pods, which the worker runs. */
  podWatch?: WorkerPodWatch;
}

export function clusterClients(config: Config, options: ClusterClientOptions & { requestTimeoutMs?: number } = {}): ClusterClients {
  const kube = createKubeClients(loadKubeConfig(options.kubeconfigPath ?? config.kubeconfig));
  const workerClusters = options.workerClusters ?? createWorkerClusterClients(workerClustersOf(config));
  if (workerClusters.size === 0) return { kube, workerClusters };
  const callMs = toMillis(parseGoDuration(config.timeouts.call)!);
  const requestTimeoutMs = options.requestTimeoutMs ?? Math.min(10_000, callMs);
  const copyCollector = createCopyCollector({ namespace: config.namespace, manager: kube, workerClusters, requestTimeoutMs, graceMs: callMs, log });
  const recheckMs = toMillis(parseGoDuration(config.timeouts.watchRecheck)!);
  const exitCodes = new ExitCodeMemory({ keepMs: Math.max(EXIT_CODE_MEMORY_MIN_MS, recheckMs) });
  const podWatch = createWorkerPodWatch({ namespace: config.namespace, workerClusters, memory: exitCodes, requestTimeoutMs });
  return { kube, workerClusters, copyCollector, exitCodes, podWatch };
}
