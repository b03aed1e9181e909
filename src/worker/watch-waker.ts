// The Watch waker (docs/contract.md §9b): a Watch waits holding no activity, and this wakes it.
// Each worker keeps its one shared watch of the namespace's dispatch-labelled TrainJobs (and, in
// Kueue mode, their Workloads) in step (src/kube/watched-lists.ts) and, for each object that
// changed, signals `wake` to the Watch of its TrainJob, whose workflow id is known:
// `watch/<ns>/<name>/<uid>`. A TrainJob nobody watches answers "not found", which is fine. Here is
// the glue: what a change means to a Watch; the wakes and their retries are in wake-queue.ts, the
// sweep of the running Watches after every list in watch-sweep.ts.
//
// Bounded: one change wakes a Watch at most once per worker, and only a change of what the Watch
// reads. Each object's view (observed-trim.ts: the metadata, spec.suspend or spec.active and the
// status conditions a phase is decided from, less resourceVersion and generation) is kept as a
// digest; a change that leaves it as it was sends nothing (`coalesced`): the controllers rewrite a
// TrainJob's status.jobsStatus many times over a job's life, which changes no phase (with 10,000
// TrainJobs, Trainer's catching up on their JobSets kept ~25 such changes a second coming for tens
// of minutes, each a wake, a workflow task and a read, for nothing). A wake still queued for that
// Watch takes the later change too, and one heard while its signal is in flight is sent once more
// (wake-queue.ts). At most MAX_IN_FLIGHT signals are sent at once. With several workers each
// signals once per change: a wake is a few history events, and the Watch reads once per workflow
// task however many wakes it holds. A Kubernetes Lease would cut that to one worker, at the price
// of a lease renewal every few seconds per namespace and a gap of a lease term when its holder
// dies (docs/performance.md).
//
// Kill -9 of every worker: the next worker's first list wakes the Watches of TrainJobs that ended
// within timeouts.watchRecheck (their Complete or Failed condition) or are being deleted (a Watch
// answers Absent for those). A relist after the feed was out of step (a reconnection, or RBAC
// without `watch`, where the feed lists every few seconds) wakes the Watches of what changed
// between the two lists. What is in neither list is found by the sweep (watch-sweep.ts).
import { createHash } from 'node:crypto';
import type { Config } from '../model/config.js';
import type { Log } from '../observability/log.js';
import { Labels, Trainer } from '../model/constants.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import type { TrainJob, Workload } from '../model/kube.js';
import type { TrainJobRef } from '../model/operations.js';
import { trimTrainJob, trimWorkload } from '../core/objects/observed-trim.js';
import { watchWorkflowId } from '../contract/names.js';
import { isBeingDeleted } from '../core/objects/deletion.js';
import { terminalOf } from '../core/operations/terminal.js';
import { TRAINJOBS, workloads, type NamespacedKind } from '../kube/objects.js';
import { keepInStep } from '../kube/keep-in-step.js';
import type { FeedChange, WatchedLists } from '../kube/watched-lists.js';
import { createRetryTimers, createWakeQueue, FIRST_RETRY_MS, MAX_IN_FLIGHT, type WakeResult } from './wake-queue.js';
import { createWatchSweep, SWEEP_EVERY_MS } from './watch-sweep.js';
import type { WorkerClusterRead } from '../core/operations/observed.js';
import { createWorkerClusterWakes, POLL_MS } from './worker-cluster-wakes.js';

export { FIRST_RETRY_MS, MAX_IN_FLIGHT, MAX_RETRY_MS, type WakeResult } from './wake-queue.js';
export { SWEEP_EVERY_MS } from './watch-sweep.js';
export { wakerWorkerClusters } from './worker-cluster-wakes.js';

export interface WatchWakerOptions {
  config: Pick<Config, 'namespace' | 'mode' | 'kueue' | 'timeouts'>;
  lists: Pick<WatchedLists, 'subscribe' | 'snapshot'>;
  /** Sends `wake` to the workflow: `not-watched` when there is no such workflow running. */
  signal(workflowId: string): Promise<'signalled' | 'not-watched'>;
  count?(result: WakeResult): void;
  /**
   * The waker's own lines: how many Watches a worker's first list woke (after every worker was
   * down, the one sign that they were), and each wake that failed and is sent again.
   */
  log?: Log;
  maxInFlight?: number;
  /** The first wait before a failed wake is sent again (default FIRST_RETRY_MS). */
  firstRetryMs?: number;
  /**
   * The Watches running on the namespace's TrainJobs (running-watches.ts): after every list of the
   * TrainJobs, those whose TrainJob the list does not hold are woken. Without it, no such sweep.
   */
  runningWatches?(namespace: string): Promise<TrainJobRef[]>;
  /** How often the feeds are asked for, which keeps them in step and restarts them (default RETRY_MS). */
  keepInStepMs?: number;
  /** The least time between two sweeps of the running Watches (default SWEEP_EVERY_MS). */
  sweepEveryMs?: number;
  /**
   * MultiKueue: the configured worker clusters' MultiKueueClusters, read by name; a change of one's
   * Active condition wakes the Watches of the jobs placed there (worker-cluster-wakes.ts).
   */
  workerClusters?: { names: readonly string[]; read(name: string): Promise<WorkerClusterRead>; everyMs?: number };
  now?: () => number;
}

export interface WatchWaker {
  /** Every change the waker heard goes through here (the tests call it directly). */
  hear(change: FeedChange): void;
  /** Every list of the TrainJobs, with the UIDs it held, goes through here (the tests call it directly). */
  listed(uids: ReadonlySet<string>): void;
  /** Resolves once nothing is queued, in flight or waiting to be sent again. */
  idle(): Promise<void>;
  /**
   * Subscribes and keeps the feeds in step until the signal aborts; then drops the wakes still
   * queued and resolves once the signals in flight have settled, so the caller may close the
   * Temporal connection (a signal retried on a closed connection throws out of a timer).
   */
  run(stop: AbortSignal): Promise<void>;
}

/** The Watch workflow id an object's change concerns: the TrainJob's own, or the owner's for a Workload. */
function watchIdOf({ kind, object }: FeedChange): string | undefined {
  const meta = object.metadata;
  const namespace = meta?.namespace;
  if (!namespace) return undefined;
  if (kind === Trainer.trainJobKind) {
    return meta.name && meta.uid ? watchWorkflowId({ namespace, name: meta.name, uid: meta.uid }) : undefined;
  }
  const owner = meta.ownerReferences?.find((o) => o.kind === Trainer.trainJobKind);
  return owner ? watchWorkflowId({ namespace, name: owner.name, uid: owner.uid }) : undefined;
}

/**
 * What a Watch decides from in the object (a TrainJob's or a Workload's trimmed form), less what
 * every write changes, as a short digest: two changes with the same digest are one to a Watch.
 */
export function viewDigest({ kind, object }: Pick<FeedChange, 'kind' | 'object'>): string {
  const view = kind === Trainer.trainJobKind ? trimTrainJob(object as TrainJob) : trimWorkload(object as Workload);
  const { resourceVersion: _version, generation: _generation, ...metadata } = view.metadata ?? {};
  return createHash('sha1').update(JSON.stringify({ ...view, metadata })).digest('base64');
}

export function createWatchWaker(options: WatchWakerOptions): WatchWaker {
  const { config, lists } = options;
  const count = options.count ?? (() => {});
  const log = options.log ?? (() => {});
  const now = options.now ?? Date.now;
  const recheckMs = toMillis(parseGoDuration(config.timeouts.watchRecheck)!);
  /** The digest of the view last acted on, by object UID. */
  const seen = new Map<string, string>();
  let stopped = false;
  let idlers: (() => void)[] = [];
  const isStopped = () => stopped;

  const settleIdlers = () => {
    if (queue.busy || sweep.busy || retries.size > 0) return;
    for (const idle of idlers) idle();
    idlers = [];
  };
  const retries = createRetryTimers(options.firstRetryMs ?? FIRST_RETRY_MS, isStopped);
  const queue = createWakeQueue({
    signal: options.signal,
    count,
    failed: (workflowId, error, attempts) =>
      log('wake of a Watch failed; sent again later', { workflowId, attempts, error: error instanceof Error ? error.message : String(error) }, 'warn'),
    now,
    maxInFlight: options.maxInFlight ?? MAX_IN_FLIGHT,
    recheckMs,
    retries,
    stopped: isStopped,
    settled: settleIdlers,
  });
  const sweep = createWatchSweep({
    namespace: config.namespace,
    runningWatches: options.runningWatches,
    wake: queue.wake,
    now,
    recheckMs,
    sweepEveryMs: options.sweepEveryMs ?? SWEEP_EVERY_MS,
    retries,
    stopped: isStopped,
    settled: settleIdlers,
  });

  const feeds: { kind: NamespacedKind; label: string }[] = [
    { kind: TRAINJOBS, label: Labels.jobId },
    ...(config.mode === 'kueue' ? [{ kind: workloads(config.kueue.workloadVersion), label: Labels.kueueJobUid }] : []),
  ];

  /** On a worker's first list: only a TrainJob that ended within watchRecheck, or is being deleted, may have a Watch the dead workers did not wake. */
  const endedRecently = ({ kind, object }: FeedChange): boolean => {
    if (kind !== Trainer.trainJobKind) return false;
    if (isBeingDeleted(object)) return true;
    const at = terminalOf({ trainJob: object as TrainJob, config })?.at;
    return at !== undefined && now() - Date.parse(at) <= recheckMs;
  };

  /** The Watches the TrainJobs' first list woke, told once that list is through. */
  const firstListWakes = new Set<string>();
  let firstListed = false;

  const hear = (change: FeedChange) => {
    if (stopped) return;
    const { object, deleted } = change;
    const uid = object.metadata?.uid;
    if (!uid) return;
    if (deleted) seen.delete(uid);
    else {
      const digest = viewDigest(change);
      if (seen.get(uid) === digest) return count('coalesced');
      seen.set(uid, digest);
    }
    if (change.seen === 'first-list' && !endedRecently(change)) return;
    const id = watchIdOf(change);
    if (id === undefined) return;
    if (change.seen === 'first-list') firstListWakes.add(id);
    queue.wake(id);
  };

  const listed = (uids: ReadonlySet<string>) => {
    if (!firstListed) {
      firstListed = true;
      log('first list of the TrainJobs: woke the Watches of those that ended within watchRecheck or are being deleted', {
        namespace: config.namespace,
        trainJobs: uids.size,
        watchesWoken: firstListWakes.size,
      });
      firstListWakes.clear();
    }
    sweep.listed(uids);
  };

  return {
    hear,
    listed,
    idle: () => new Promise<void>((resolve) => {
      idlers.push(resolve);
      settleIdlers();
    }),
    run(stop) {
      const unsubscribe = feeds.map((f) =>
        lists.subscribe(f.kind, config.namespace, f.label, hear, f.kind === TRAINJOBS ? listed : undefined),
      );
      const stopAsking = keepInStep(() => {
        for (const f of feeds) lists.snapshot(f.kind, config.namespace, f.label);
      }, options.keepInStepMs);
      const clusters = options.workerClusters;
      if (clusters && clusters.names.length > 0 && config.mode === 'kueue') {
        const kind = workloads(config.kueue.workloadVersion);
        createWorkerClusterWakes({
          clusters: clusters.names,
          read: clusters.read,
          workloads: () => lists.snapshot(kind, config.namespace, Labels.kueueJobUid),
          wake: (ref) => queue.wake(watchWorkflowId(ref)),
        }).run(stop, clusters.everyMs ?? POLL_MS);
      }
      return new Promise<void>((resolve) => {
        const halt = () => {
          stopAsking();
          for (const u of unsubscribe) u();
          stopped = true;
          queue.stop();
          sweep.stop();
          retries.clear();
          idlers.push(resolve);
          settleIdlers();
        };
        if (stop.aborted) halt();
        else stop.addEventListener('abort', halt, { once: true });
      });
    },
  };
}
