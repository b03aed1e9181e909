// The Watch waker's queue (watch-waker.ts): the wakes waiting to be signalled, at most
// MAX_IN_FLIGHT signals at once, and the retries of those that failed.
//
// A signal that failed (the Temporal server restarting, say) is sent again after 1 s, then twice as
// long each time up to MAX_RETRY_MS, until it lands or watchRecheck has passed since its first
// failure (by then the Watch's own timer has read): with every worker's signal failing at once, a
// dropped wake would leave the Watch waiting a whole watchRecheck for a change it was told about.
//
// A wake still queued for a Watch takes a later change too (its signal is recorded after the
// change, and the Watch reads after that). A change heard while the Watch's signal is in flight is
// sent once more when that signal lands: the in-flight one may have been recorded, and the Watch
// may have read, before the change happened (a Stop's delete heard while the wake of its
// deletionTimestamp was in flight left a Kueue Watch waiting its whole timer in chaos).
import type { WAKE_RESULTS } from '../observability/metrics.js';

/** Signals in flight at once, per worker. */
export const MAX_IN_FLIGHT = 32;
/** The first wait before a failed wake is sent again; it doubles with each failure in a row. */
export const FIRST_RETRY_MS = 1_000;
/** The longest wait between two tries of one wake. */
export const MAX_RETRY_MS = 30_000;

export type WakeResult = (typeof WAKE_RESULTS)[number];

/** The waker's backoff timers, shared by a failed wake and a sweep Temporal did not answer. */
export interface RetryTimers {
  /** Runs `again` after the first retry wait doubled `failed` times (at most MAX_RETRY_MS), unless the waker has stopped by then. */
  later(failed: number, again: () => void): void;
  /** Timers not fired yet. */
  readonly size: number;
  clear(): void;
}

export function createRetryTimers(firstRetryMs: number, stopped: () => boolean): RetryTimers {
  const timers = new Set<NodeJS.Timeout>();
  return {
    later(failed, again) {
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          if (!stopped()) again();
        },
        Math.min(MAX_RETRY_MS, firstRetryMs * 2 ** Math.min(failed, 30)),
      );
      timer.unref();
      timers.add(timer);
    },
    get size() {
      return timers.size;
    },
    clear() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

export interface WakeQueueOptions {
  /** Sends `wake` to the workflow: `not-watched` when there is no such workflow running. */
  signal(workflowId: string): Promise<'signalled' | 'not-watched'>;
  count(result: WakeResult): void;
  /** Told of each signal that failed, with why, before it is sent again (or given up). */
  failed?(workflowId: string, error: unknown, attempts: number): void;
  now(): number;
  maxInFlight: number;
  /** timeouts.watchRecheck: how long a failed wake is tried again, from its first failure. */
  recheckMs: number;
  retries: RetryTimers;
  stopped(): boolean;
  /** Told each time the queue may have emptied (the waker's idle()). */
  settled(): void;
}

export interface WakeQueue {
  /** Queues a wake of the Watch `id`, unless one is queued; one in flight is sent once more. */
  wake(id: string): void;
  /** Something queued or in flight. */
  readonly busy: boolean;
  /** Once the waker has stopped: drops the wakes queued and what the retries knew. */
  stop(): void;
}

export function createWakeQueue(options: WakeQueueOptions): WakeQueue {
  const { count, now, maxInFlight, recheckMs, retries, stopped, settled } = options;
  const queue: string[] = [];
  /** Watches with a wake queued, in flight or waiting to be sent again. */
  const pending = new Set<string>();
  /** Watches whose signal is in flight, and of those the ones that changed meanwhile (sent again when it lands). */
  const inFlightIds = new Set<string>();
  const changedInFlight = new Set<string>();
  /** Wakes whose signal failed: failures in a row and since when, by Watch workflow id. */
  const failures = new Map<string, { count: number; since: number }>();
  let inFlight = 0;

  /** Sends a failed wake again later; it stays pending meanwhile, so later changes ride with it. */
  const retryLater = (id: string, error: unknown) => {
    const failed = failures.get(id) ?? { count: 0, since: now() };
    failed.count += 1;
    failures.set(id, failed);
    options.failed?.(id, error, failed.count);
    // A change heard while this signal was in flight rides with the next try.
    if (changedInFlight.delete(id)) count('coalesced');
    if (stopped() || now() - failed.since >= recheckMs) {
      failures.delete(id);
      pending.delete(id);
      return;
    }
    retries.later(failed.count - 1, () => {
      queue.push(id);
      pump();
    });
  };

  const pump = () => {
    while (!stopped() && inFlight < maxInFlight && queue.length > 0) {
      const id = queue.shift()!;
      inFlight += 1;
      inFlightIds.add(id);
      let why: unknown;
      void options
        .signal(id)
        .catch((error: unknown) => {
          why = error;
          return 'failed' as const;
        })
        .then((result) => {
          count(result);
          inFlight -= 1;
          inFlightIds.delete(id);
          if (result === 'failed') retryLater(id, why);
          else {
            failures.delete(id);
            // A Watch that is not running has nothing to read again.
            if (changedInFlight.delete(id) && result === 'signalled' && !stopped()) queue.push(id);
            else pending.delete(id);
          }
          pump();
        });
    }
    settled();
  };

  return {
    wake(id) {
      if (stopped()) return;
      if (pending.has(id)) {
        if (!inFlightIds.has(id) || changedInFlight.has(id)) return count('coalesced');
        changedInFlight.add(id);
        return;
      }
      pending.add(id);
      queue.push(id);
      pump();
    },
    get busy() {
      return queue.length > 0 || inFlight > 0;
    },
    stop() {
      for (const id of queue.splice(0)) pending.delete(id);
      changedInFlight.clear();
      failures.clear();
    },
  };
}
