// The Watch waker's sweep (watch-waker.ts): a TrainJob created and deleted between two lists of
// the feed (an API server restart right after a Start, then a Stop) or gone altogether while no
// worker ran is in neither list, so no change of it is heard. So after every list of the
// TrainJobs the waker asks Temporal for the namespace's running Watches (running-watches.ts) and
// wakes those whose TrainJob the list did not hold. Any other change missed meanwhile is found by
// the Watch's own timer.
import type { TrainJobRef } from '../model/operations.js';
import { watchWorkflowId } from '../contract/names.js';
import type { RetryTimers } from './wake-queue.js';

/**
 * The least time between two sweeps of the running Watches: a list comes at a worker's start and
 * after its watch broke, but every few seconds where the worker may list and not watch.
 */
export const SWEEP_EVERY_MS = 30_000;

export interface WatchSweepOptions {
  namespace: string;
  /** The Watches running on the namespace's TrainJobs; without it, no sweep. */
  runningWatches?(namespace: string): Promise<TrainJobRef[]>;
  /** Wakes the Watch of this workflow id (the wake queue). */
  wake(id: string): void;
  now(): number;
  /** timeouts.watchRecheck: how long a sweep Temporal does not answer is asked again, from its list. */
  recheckMs: number;
  sweepEveryMs: number;
  retries: Pick<RetryTimers, 'later'>;
  stopped(): boolean;
  /** Told each time the sweep may have ended (the waker's idle()). */
  settled(): void;
}

export interface WatchSweep {
  /** Every list of the TrainJobs, with the UIDs it held. */
  listed(uids: ReadonlySet<string>): void;
  /** A sweep in flight, or a list waiting for its sweep. */
  readonly busy: boolean;
  /** Once the waker has stopped: drops the list waiting for its sweep. */
  stop(): void;
}

export function createWatchSweep(options: WatchSweepOptions): WatchSweep {
  const { namespace, wake, now, recheckMs, sweepEveryMs, retries, stopped, settled } = options;
  let sweepsInFlight = 0;
  /** The latest list of the TrainJobs not swept yet, while it waits out sweepEveryMs since the last sweep. */
  let sweepDue: { uids: ReadonlySet<string>; timer: NodeJS.Timeout } | undefined;
  let lastSweepAt = -Infinity;

  /**
   * After a list of the TrainJobs: wakes every running Watch whose TrainJob the list did not hold
   * (gone while the worker did not watch: running-watches.ts). Asked again after 1 s, doubling, while
   * Temporal does not answer, until watchRecheck has passed since the list.
   */
  const sweep = (listed: ReadonlySet<string>, since = now(), failed = 0): void => {
    const running = options.runningWatches;
    if (stopped() || !running) return;
    sweepsInFlight += 1;
    void running(namespace)
      .then(
        (refs) => {
          for (const ref of refs) if (!listed.has(ref.uid)) wake(watchWorkflowId(ref));
        },
        () => {
          if (!stopped() && now() - since < recheckMs) retries.later(failed, () => sweep(listed, since, failed + 1));
        },
      )
      .finally(() => {
        sweepsInFlight -= 1;
        settled();
      });
  };

  return {
    /**
     * Every list of the TrainJobs: swept at once, or, within sweepEveryMs of the last sweep, once
     * that has passed, with the latest list then. A feed whose worker may not watch relists every few
     * seconds, and each sweep is a visibility query of every running Watch of the namespace.
     */
    listed(uids) {
      if (stopped()) return;
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
        settled();
      }, wait);
      sweepDue = { uids, timer };
    },
    get busy() {
      return sweepsInFlight > 0 || sweepDue !== undefined;
    },
    stop() {
      if (sweepDue) clearTimeout(sweepDue.timer);
      sweepDue = undefined;
    },
  };
}
