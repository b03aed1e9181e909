// MultiKueue (docs/multikueue.md, "A lost worker cluster wakes its Watches"): a woken Watch learns
// that Kueue lost its job's worker cluster only when it reads, at a wake (a change of its TrainJob
// or Workload, which a lost cluster does not make) or at its recheck (timeouts.watchRecheck, 15
// minutes by default). So the Watch waker also reads the configured clusters' MultiKueueClusters
// on the manager, every POLL_MS, and when one's Active condition changes wakes the Watches of the
// TrainJobs whose Workload Kueue placed on that cluster.
//
// Why a read by name and not a watch: MultiKueueClusters are cluster-scoped and few (the
// configuration names them), the worker's feeds are namespaced, and a get by name is what Watch
// already needs (the chart grants get on those names only). N clusters cost N reads per POLL_MS
// per worker.
//
// Bounded: a cluster wakes its Watches only when its state changes (activeStateOf: status and
// reason, not the message Kueue rewrites); a read that does not answer changes nothing; each wake
// goes through the waker's queue (coalesced per Watch, MAX_IN_FLIGHT at once).
import type { KubeObject } from '../model/kube.js';
import type { Config } from '../model/config.js';
import type { MultiKueueClusterReads } from '../activities/worker-cluster-reads.js';
import type { TrainJobRef } from '../model/operations.js';
import type { WorkerClusterRead } from '../core/operations/observed.js';
import { activeStateOf, trainJobsPlacedOn, wakesOnChange } from '../core/operations/worker-cluster-changes.js';

/** How often the MultiKueueClusters are read: well under Kueue's own reconnect and any recheck. */
export const POLL_MS = 5_000;

export interface WorkerClusterWakesOptions {
  /** The worker clusters of the configuration, by name (their MultiKueueClusters'). */
  clusters: readonly string[];
  /** A read of one MultiKueueCluster on the manager (worker-cluster-reads.ts); never throws. */
  read(name: string): Promise<WorkerClusterRead>;
  /** The namespace's Workloads as the worker's feed holds them; undefined while it is not in step. */
  workloads(): readonly KubeObject[] | undefined;
  /** Wakes the Watch of a TrainJob. */
  wake(ref: TrainJobRef): void;
}

export interface WorkerClusterWakes {
  /** One round: reads every cluster, wakes where one changed (the tests call it directly). */
  poll(): Promise<void>;
  /** Polls every `everyMs` until the signal aborts. */
  run(stop: AbortSignal, everyMs?: number): void;
}

export function createWorkerClusterWakes(options: WorkerClusterWakesOptions): WorkerClusterWakes {
  /** The state last acted on, by cluster. */
  const acted = new Map<string, string>();
  /** Clusters whose change is still to be told, for want of the Workloads (their feed not in step). */
  const pending = new Set<string>();
  let polling = false;

  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const reads = await Promise.all(options.clusters.map(async (name) => [name, activeStateOf(await options.read(name))] as const));
      for (const [name, state] of reads) {
        if (state === undefined) continue;
        if (wakesOnChange(acted.get(name), state)) pending.add(name);
        acted.set(name, state);
      }
      if (pending.size === 0) return;
      const workloads = options.workloads();
      if (workloads === undefined) return;
      for (const name of pending) for (const ref of trainJobsPlacedOn(name, workloads)) options.wake(ref);
      pending.clear();
    } finally {
      polling = false;
    }
  };

  return {
    poll,
    run(stop, everyMs = POLL_MS) {
      if (stop.aborted) return;
      const timer = setInterval(() => void poll(), everyMs);
      timer.unref();
      stop.addEventListener('abort', () => clearInterval(timer), { once: true });
    },
  };
}

/**
 * The Watch waker's option for the worker clusters `names` (none: no option): their
 * MultiKueueClusters read on the manager, in the configured Workload API version, through `reads`,
 * the one the worker's activities read through: each poll reads anew, and the Watch it wakes is
 * served that read (a read of its own, kept from just before the change, would hide it until the
 * recheck, minutes later).
 */
export function wakerWorkerClusters(names: readonly string[], reads: MultiKueueClusterReads, config: Pick<Config, 'kueue'>) {
  if (names.length === 0) return {};
  return { workerClusters: { names, read: (name: string) => reads.readAnew(config.kueue.workloadVersion, name) } };
}
