// The Watch waker (docs/contract.md §9b): a Watch waits holding no activity, and this wakes it.
// Each worker keeps its one shared watch of the namespace's dispatch-labelled TrainJobs (and, in
// Kueue mode, their Workloads) in step (src/kube/watched-lists.ts) and, for each object that
// changed, signals `wake` to the Watch of its TrainJob, whose workflow id is known:
// `watch/<ns>/<name>/<uid>`. A TrainJob nobody watches answers "not found", which is fine.
//
// A signal that failed (the Temporal server restarting, say) is sent again after 1 s, then twice as
// long each time up to MAX_RETRY_MS, until it lands or watchRecheck has passed since its first
// failure (by then the Watch's own timer has read): with every worker's signal failing at once, a
// dropped wake would leave the Watch waiting a whole watchRecheck for a change it was told about.
//
// Bounded: one change wakes a Watch at most once per worker, and only a change of what the Watch
// reads. Each object's view (observed-trim.ts: the metadata, spec.suspend or spec.active and the
// status conditions a phase is decided from, less resourceVersion and generation) is kept as a
// digest; a change that leaves it as it was sends nothing (`coalesced`): the controllers rewrite a
// TrainJob's status.jobsStatus many times over a job's life, which changes no phase (with 10,000
// TrainJobs, Trainer's catching up on their JobSets kept ~25 such changes a second coming for tens
// of minutes, each a wake, a workflow task and a read, for nothing). A wake still queued for that
// Watch takes the later change too (its signal is recorded after the change, and the Watch reads
// after that). A change heard while the Watch's signal is in flight is sent once more when that
// signal lands: the in-flight one may have been recorded, and the Watch may have read, before the
// change happened (a Stop's delete heard while the wake of its deletionTimestamp was in flight
// left a Kueue Watch waiting its whole timer in chaos). At most MAX_IN_FLIGHT signals are sent at
// once. With several workers each signals once per change: a
// wake is a few history events, and the Watch reads once per workflow task however many wakes it
// holds. A Kubernetes Lease would cut that to one worker, at the price of a lease renewal every few
// seconds per namespace and a gap of a lease term when its holder dies (docs/performance.md).
//
// Kill -9 of every worker: the next worker's first list wakes the Watches of TrainJobs that ended
// within timeouts.watchRecheck (their Complete or Failed condition) or are being deleted (a Watch
// answers Absent for those). A relist after the feed was out of step (a reconnection, or RBAC
// without `watch`, where the feed lists every few seconds) wakes the Watches of what changed
// between the two lists. A TrainJob created and deleted within such a gap (an API server restart
// right after a Start, then a Stop) or gone altogether while no worker ran is in neither list: so
// after every list the waker also asks Temporal for the namespace's running Watches
// (running-watches.ts) and wakes those whose TrainJob the list did not hold. Any other change missed
// meanwhile is found by the Watch's own timer.
import { createHash } from 'node:crypto';
import type { Config } from '../model/config.js';
import { Labels, Trainer } from '../model/constants.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import type { TrainJob, Workload } from '../model/kube.js';
import type { TrainJobRef } from '../model/operations.js';
import { trimTrainJob, trimWorkload } from '../core/objects/observed-trim.js';
import { operationWorkflowId } from '../contract/names.js';
import { isBeingDeleted } from '../core/objects/deletion.js';
import { terminalOf } from '../core/operations/terminal.js';
import { TRAINJOBS, workloads, type NamespacedKind } from '../kube/objects.js';
import type { WAKE_RESULTS } from '../observability/metrics.js';
import { RETRY_MS, type FeedChange, type WatchedLists } from '../kube/watched-lists.js';

/** Signals in flight at once, per worker. */
export const MAX_IN_FLIGHT = 32;
/** The first wait before a failed wake is sent again; it doubles with each failure in a row. */
export const FIRST_RETRY_MS = 1_000;
/** The longest wait between two tries of one wake. */
export const MAX_RETRY_MS = 30_000;
/**
 * The least time between two sweeps of the running Watches: a list comes at a worker's start and
 * after its watch broke, but every few seconds where the worker may list and not watch.
 */
export const SWEEP_EVERY_MS = 30_000;

export type WakeResult = (typeof WAKE_RESULTS)[number];

export interface WatchWakerOptions {
  config: Pick<Config, 'namespace' | 'mode' | 'kueue' | 'timeouts'>;
  lists: Pick<WatchedLists, 'subscribe' | 'snapshot'>;
  /** Sends `wake` to the workflow: `not-watched` when there is no such workflow running. */
  signal(workflowId: string): Promise<'signalled' | 'not-watched'>;
  count?(result: WakeResult): void;
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
    return meta.name && meta.uid ? operationWorkflowId('watch', { namespace, name: meta.name, uid: meta.uid }) : undefined;
  }
  const owner = meta.ownerReferences?.find((o) => o.kind === Trainer.trainJobKind);
  return owner ? operationWorkflowId('watch', { namespace, name: owner.name, uid: owner.uid }) : undefined;
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
  const now = options.now ?? Date.now;
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  const firstRetryMs = options.firstRetryMs ?? FIRST_RETRY_MS;
  const recheckMs = toMillis(parseGoDuration(config.timeouts.watchRecheck)!);
  const sweepEveryMs = options.sweepEveryMs ?? SWEEP_EVERY_MS;
  /** The digest of the view last acted on, by object UID. */
  const seen = new Map<string, string>();
  const queue: string[] = [];
  /** Watches with a wake queued, in flight or waiting to be sent again. */
  const pending = new Set<string>();
  /** Watches whose signal is in flight, and of those the ones that changed meanwhile (sent again when it lands). */
  const inFlightIds = new Set<string>();
  const changedInFlight = new Set<string>();
  /** Wakes whose signal failed: failures in a row and since when, by Watch workflow id. */
  const failures = new Map<string, { count: number; since: number }>();
  const retryTimers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let sweepsInFlight = 0;
  /** The latest list of the TrainJobs not swept yet, while it waits out SWEEP_EVERY_MS since the last sweep. */
  let sweepDue: { uids: ReadonlySet<string>; timer: NodeJS.Timeout } | undefined;
  let lastSweepAt = -Infinity;
  let stopped = false;
  let idlers: (() => void)[] = [];

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

  const settleIdlers = () => {
    if (queue.length > 0 || inFlight > 0 || sweepsInFlight > 0 || retryTimers.size > 0 || sweepDue) return;
    for (const idle of idlers) idle();
    idlers = [];
  };

  /** Runs `again` after 1 s doubled `failed` times (at most MAX_RETRY_MS), unless the waker has stopped by then. */
  const later = (failed: number, again: () => void) => {
    const timer = setTimeout(
      () => {
        retryTimers.delete(timer);
        if (!stopped) again();
      },
      Math.min(MAX_RETRY_MS, firstRetryMs * 2 ** Math.min(failed, 30)),
    );
    timer.unref();
    retryTimers.add(timer);
  };

  /** Sends a failed wake again later; it stays pending meanwhile, so later changes ride with it. */
  const retryLater = (id: string) => {
    const failed = failures.get(id) ?? { count: 0, since: now() };
    failed.count += 1;
    failures.set(id, failed);
    // A change heard while this signal was in flight rides with the next try.
    if (changedInFlight.delete(id)) count('coalesced');
    if (stopped || now() - failed.since >= recheckMs) {
      failures.delete(id);
      pending.delete(id);
      return;
    }
    later(failed.count - 1, () => {
      queue.push(id);
      pump();
    });
  };

  const pump = () => {
    while (!stopped && inFlight < maxInFlight && queue.length > 0) {
      const id = queue.shift()!;
      inFlight += 1;
      inFlightIds.add(id);
      void options
        .signal(id)
        .catch(() => 'failed' as const)
        .then((result) => {
          count(result);
          inFlight -= 1;
          inFlightIds.delete(id);
          if (result === 'failed') retryLater(id);
          else {
            failures.delete(id);
            // A Watch that is not running has nothing to read again.
            if (changedInFlight.delete(id) && result === 'signalled' && !stopped) queue.push(id);
            else pending.delete(id);
          }
          pump();
        });
    }
    settleIdlers();
  };

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
    if (id !== undefined) wake(id);
  };

  /**
   * After a list of the TrainJobs: wakes every running Watch whose TrainJob the list did not hold
   * (gone while the worker did not watch: running-watches.ts). Asked again after 1 s, doubling, while
   * Temporal does not answer, until watchRecheck has passed since the list.
   */
  const sweep = (listed: ReadonlySet<string>, since = now(), failed = 0): void => {
    const running = options.runningWatches;
    if (stopped || !running) return;
    sweepsInFlight += 1;
    void running(config.namespace)
      .then(
        (refs) => {
          for (const ref of refs) if (!listed.has(ref.uid)) wake(operationWorkflowId('watch', ref));
        },
        () => {
          if (!stopped && now() - since < recheckMs) later(failed, () => sweep(listed, since, failed + 1));
        },
      )
      .finally(() => {
        sweepsInFlight -= 1;
        settleIdlers();
      });
  };

  /**
   * Every list of the TrainJobs: swept at once, or, within SWEEP_EVERY_MS of the last sweep, once
   * that has passed, with the latest list then. A feed whose worker may not watch relists every few
   * seconds, and each sweep is a visibility query of every running Watch of the namespace.
   */
  const listed = (uids: ReadonlySet<string>): void => {
    if (stopped) return;
    if (sweepDue) {
      sweepDue.uids = uids;
      return;
    }
    const wait = lastSweepAt + sweepEveryMs - now();
    if (wait <= 0) {
      lastSweepAt = now();
      return sweep(uids);
    }
    const timer = setTimeout(() => {
      const due = sweepDue!.uids;
      sweepDue = undefined;
      lastSweepAt = now();
      sweep(due);
      settleIdlers();
    }, wait);
    sweepDue = { uids, timer };
  };

  /** Queues a wake of the Watch `id`, unless one is queued; one in flight is sent once more. */
  const wake = (id: string) => {
    if (stopped) return;
    if (pending.has(id)) {
      if (!inFlightIds.has(id) || changedInFlight.has(id)) return count('coalesced');
      changedInFlight.add(id);
      return;
    }
    pending.add(id);
    queue.push(id);
    pump();
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
      const keepInStep = () => {
        for (const f of feeds) lists.snapshot(f.kind, config.namespace, f.label);
      };
      keepInStep();
      const timer = setInterval(keepInStep, options.keepInStepMs ?? RETRY_MS);
      timer.unref();
      return new Promise<void>((resolve) => {
        const halt = () => {
          clearInterval(timer);
          for (const u of unsubscribe) u();
          stopped = true;
          for (const id of queue.splice(0)) pending.delete(id);
          changedInFlight.clear();
          if (sweepDue) clearTimeout(sweepDue.timer);
          sweepDue = undefined;
          for (const timer of retryTimers) clearTimeout(timer);
          retryTimers.clear();
          failures.clear();
          idlers.push(resolve);
          settleIdlers();
        };
        if (stop.aborted) halt();
        else stop.addEventListener('abort', halt, { once: true });
      });
    },
  };
}
