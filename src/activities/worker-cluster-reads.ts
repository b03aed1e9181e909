// Watch with MultiKueue (docs/contract.md §11, docs/multikueue.md "Operations and Watch"): what a
// Watch reads about the worker cluster its job runs on. With the manager's client, the
// MultiKueueCluster of that cluster (its condition Active: whether Kueue reaches it), shared by every
// Watch of the worker for a few seconds so that 1,000 Watches cost one read per cluster per
// WATCH_POLL_MS; and with that cluster's own client, a Failed job's pods for the exit code, with
// what the worker's watch of those pods remembers (src/worker/exit-code-memory.ts) once they are gone.
import type { KubeClients, WorkerClusterClients } from '../kube/clients.js';
import { describeRefusal } from '../kube/call.js';
import { multiKueueClusters, ObjectCalls } from '../kube/objects.js';
import { workerClustersOf } from '../core/start/worker-copies.js';
import { clusterOf, type Observed, type WorkerClusterRead } from '../core/operations/observed.js';
import { terminalOf } from '../core/operations/terminal.js';
import { trimMultiKueueCluster } from '../core/objects/observed-trim.js';
import type { RememberedFailures } from '../core/operations/node-failures.js';
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { callContext, type ActivityEnv } from './context.js';

/** How long one read of a MultiKueueCluster serves every Watch of the worker. */
export const MULTIKUEUE_CLUSTER_FRESH_MS = 3_000;

/**
 * The manager's MultiKueueClusters, read by name, each read shared for `freshMs` by the Watches
 * that ask meanwhile. A read never fails: unanswered or refused (a deployment without the
 * permission), it says so, and the Watch goes on (a state's note, never an ending).
 */
export class MultiKueueClusterReads {
  private readonly reads = new Map<string, { at: number; read: Promise<WorkerClusterRead> }>();

  constructor(
    private readonly manager: KubeClients,
    private readonly requestTimeoutMs: number,
    private readonly freshMs = MULTIKUEUE_CLUSTER_FRESH_MS,
    private readonly now: () => number = Date.now,
  ) {}

  read(version: string, name: string): Promise<WorkerClusterRead> {
    const kept = this.reads.get(`${version}/${name}`);
    if (kept !== undefined && this.now() - kept.at < this.freshMs) return kept.read;
    return this.readAnew(version, name);
  }

  /**
   * A read that no kept read serves, and that serves the reads after it. The Watch waker's polls
   * (src/worker/worker-cluster-wakes.ts): a Watch it wakes for a change must read that change, not
   * a read of a moment before it kept for freshMs, or the change is acted on and never told.
   */
  readAnew(version: string, name: string): Promise<WorkerClusterRead> {
    const key = `${version}/${name}`;
    // Its own bound, no activity's cancellation: the read is shared by every Watch that asks.
    const calls = new ObjectCalls(this.manager, { requestTimeoutMs: this.requestTimeoutMs });
    const read = calls.getClusterScoped(multiKueueClusters(version), name).then(
      (answer): WorkerClusterRead =>
        answer.answered === 'ok'
          ? { name, found: trimMultiKueueCluster(answer.value) }
          : answer.status === 404
            ? { name, absent: true }
            : { name, unread: describeRefusal(answer) },
      (error: unknown): WorkerClusterRead => ({ name, unread: error instanceof Error ? error.message : String(error) }),
    );
    this.reads.set(key, { at: this.now(), read });
    return read;
  }
}

/**
 * The observation with the MultiKueueCluster of the job's worker cluster, when the configuration
 * has worker clusters, Kueue has chosen one and the job has not ended. Otherwise as it was.
 */
export async function withWorkerCluster(observed: Observed, reads: MultiKueueClusterReads): Promise<Observed> {
  if (workerClustersOf(observed.config).length === 0) return observed;
  const { cluster } = clusterOf(observed);
  if (cluster === undefined || terminalOf(observed) !== undefined) return observed;
  return { ...observed, workerCluster: await reads.read(observed.config.kueue.workloadVersion, cluster) };
}

/** Where a Watch reads a Failed job's pods on the worker clusters. */
export interface WorkerPods {
  /** The worker clusters of the Watch's configuration this worker has clients for. */
  names: readonly string[];
  /** The calls on one of them, bound to the activity. */
  calls(cluster: string): ObjectCalls;
  /** How long after the failure an unanswered worker cluster is waited for (timeouts.call). */
  boundMs: number;
  /** The failures this worker's watch of the worker clusters' pods remembers (none without one). */
  remembered?: RememberedFailures;
}

/**
 * The worker clusters' pods of a Watch, from the worker's clients and the Watch's configuration;
 * undefined without kueue.multiKueue (the manager's pods, as with one cluster).
 */
export function workerPodsOf(env: ActivityEnv, config: Config): WorkerPods | undefined {
  const clients: WorkerClusterClients = env.workerClusters ?? new Map();
  const configured = workerClustersOf(config);
  if (configured.length === 0) return undefined;
  const names = configured
    .map((c) => c.name)
    .filter((name) => clients.has(name));
  return {
    names,
    calls: (cluster) => new ObjectCalls(clients.get(cluster)!, callContext(env)),
    boundMs: toMillis(parseGoDuration(config.timeouts.call)!),
    ...(env.exitCodes ? { remembered: env.exitCodes } : {}),
  };
}
