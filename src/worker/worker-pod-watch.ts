// MultiKueue (docs/multikueue.md): each worker's watch of the pods on every configured worker
// cluster, feeding its memory of failed `node` containers (exit-code-memory.ts). Per worker cluster
// one WatchedLists feed (src/kube/watched-lists.ts: a paged list, then a watch, resumed and relisted
// as for the manager's feeds) of the pods in the configured namespace that carry dispatch's job-id
// label, which MultiKueue's copy of the TrainJob and so its pods keep. Every change and every
// relisted pod goes to the memory; the feed holds each pod trimmed (kube/kept.ts) while it exists.
//
// A worker cluster that does not answer, or refuses (no `list`/`watch` on pods), costs a list try
// every RETRY_MS and nothing else: the feed stays down and retries, like the manager's feeds, and
// nothing here is part of the worker's readiness. The memory then has nothing of that cluster and
// the Watch reads its pods as before (failed-outcome.ts outcomeOf), saying why when it cannot.
import type { KubeClients, WorkerClusterClients } from '../kube/clients.js';
import { PODS } from '../kube/objects.js';
import type { SharedLists } from '../kube/shared-lists.js';
import { keepInStep } from '../kube/keep-in-step.js';
import { WatchedLists } from '../kube/watched-lists.js';
import { Labels } from '../model/constants.js';
import type { Pod } from '../model/kube.js';
import type { ExitCodeMemory } from './exit-code-memory.js';

/** What the pod watch uses of a worker cluster's WatchedLists. */
export type PodFeeds = Pick<WatchedLists, 'subscribe' | 'snapshot' | 'close'>;

export interface WorkerPodWatchOptions {
  namespace: string;
  workerClusters: WorkerClusterClients;
  memory: Pick<ExitCodeMemory, 'heard'>;
  requestTimeoutMs: number;
  /** How often each feed is asked for, which keeps it in step and restarts it when down (default RETRY_MS). */
  keepInStepMs?: number;
  /** The feeds of one worker cluster (default: a WatchedLists on its clients, when they can watch); tests give their own. */
  feedsFor?: (clients: KubeClients) => PodFeeds | undefined;
}

export interface WorkerPodWatch {
  /** Watches until the signal aborts, then stops every feed. */
  run(stop: AbortSignal): Promise<void>;
  /**
   * Per watched worker cluster, whether its feed was in step at the latest ask (every
   * keepInStepMs): false before its first list is through, while it is down (unanswered or
   * refused) and once stopped. The gauge dispatch_worker_cluster_pod_feed_in_step reads it.
   */
  inStep(): ReadonlyMap<string, boolean>;
}

/** No check reads these feeds (find()); the memory hears them through subscribe(). */
const NO_CHECKS: SharedLists = {
  find: () => Promise.reject(new Error("a worker cluster's pod feed answers no checks")),
};

export function createWorkerPodWatch(options: WorkerPodWatchOptions): WorkerPodWatch {
  const { namespace, memory } = options;
  const feedsFor =
    options.feedsFor ?? ((clients: KubeClients) => (clients.watch ? new WatchedLists(clients, clients.watch, NO_CHECKS, options.requestTimeoutMs) : undefined));
  const inStep = new Map<string, boolean>();
  return {
    inStep: () => inStep,
    run(stop) {
      const watched: { cluster: string; feeds: PodFeeds; unsubscribe: () => void }[] = [];
      for (const [cluster, clients] of options.workerClusters) {
        const feeds = feedsFor(clients);
        if (feeds === undefined) continue;
        const unsubscribe = feeds.subscribe(PODS, namespace, Labels.jobId, (change) => memory.heard(cluster, change.object as Pod));
        watched.push({ cluster, feeds, unsubscribe });
        inStep.set(cluster, false);
      }
      const stopAsking = keepInStep(() => {
        for (const { cluster, feeds } of watched) inStep.set(cluster, feeds.snapshot(PODS, namespace, Labels.jobId) !== undefined);
      }, options.keepInStepMs);
      return new Promise<void>((resolve) => {
        const halt = () => {
          stopAsking();
          for (const { cluster, feeds, unsubscribe } of watched) {
            unsubscribe();
            feeds.close();
            inStep.set(cluster, false);
          }
          resolve();
        };
        if (stop.aborted) halt();
        else stop.addEventListener('abort', halt, { once: true });
      });
    },
  };
}
