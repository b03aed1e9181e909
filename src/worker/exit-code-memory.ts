// MultiKueue (docs/multikueue.md, "The exit code, from the worker's pods"): what a worker remembers
// of the failed `node` containers on the worker clusters. MultiKueue deletes the worker cluster's
// copy of a TrainJob, and its pods with it, about 1.7 s after the job fails there, and the manager
// shows Failed about a second after the worker: a Watch that lists the pods once it sees Failed
// mostly finds them gone. So each worker watches the pods there (worker-pod-watch.ts) and keeps,
// per (cluster, job id, submission), the first failure it saw, by the rule of the Outcome
// (core/operations/node-failures.ts), for the Watch to read when the pods are gone.
//
// Its own, in memory: each worker process keeps one, a worker started after the pods were gone has
// nothing of them, and a restart forgets. Bounded, since it fills with every failure on every
// worker cluster and nothing tells it a Watch has read an entry (several Watches may, or none):
// - an entry goes `keepMs` after it was first remembered. A Watch reads it within seconds of the
//   manager's Failed when woken, and at the latest at its next check (timeouts.watchRecheck) when
//   no wake reached it; an hour at least (keepMs of the worker: max(1 h, watchRecheck)) also
//   covers a Watch that was not running (Temporal away, workers busy) for that long. Later, the
//   Outcome says "exit code not read", as the contract allows (exitCode is optional);
// - at most `maxEntries` entries, the oldest dropped first: each is a few hundred bytes, so the cap
//   bounds the worker's memory (10,000: ~2 MB) if more jobs fail within keepMs than it allows.
import { firstFailure, failuresToRemember, type JobKey, type NodeFailure, type RememberedFailures } from '../core/operations/node-failures.js';
import type { Pod } from '../model/kube.js';

/** The least time an entry is kept (the worker keeps it max(this, timeouts.watchRecheck)). */
export const EXIT_CODE_MEMORY_MIN_MS = 60 * 60_000;
/** The most entries kept at once. */
export const EXIT_CODE_MEMORY_MAX_ENTRIES = 10_000;

export interface ExitCodeMemoryOptions {
  keepMs: number;
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  failure: NodeFailure;
  /** When it was first remembered (the worker's clock, not the worker cluster's finishedAt). */
  at: number;
}

const keyOf = (cluster: string, job: JobKey) => `${cluster}\0${job.jobId}\0${job.submission}`;

export class ExitCodeMemory implements RememberedFailures {
  /** In the order first remembered, which is the order they expire and are dropped in. */
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly options: ExitCodeMemoryOptions) {
    this.maxEntries = options.maxEntries ?? EXIT_CODE_MEMORY_MAX_ENTRIES;
    this.now = options.now ?? Date.now;
  }

  /** A pod of `cluster` as the watch saw it (added, changed, deleted or listed): its failures, if any, are remembered. */
  heard(cluster: string, pod: Pod): void {
    const seen = failuresToRemember(pod);
    if (seen === undefined) return;
    this.expire();
    const key = keyOf(cluster, seen.job);
    const kept = this.entries.get(key);
    const first = firstFailure(kept ? [kept.failure, ...seen.failures] : seen.failures)!;
    if (kept) {
      // The earliest stays, as in a list of every pod seen; the entry keeps its age.
      kept.failure = first;
      return;
    }
    this.entries.set(key, { failure: first, at: this.now() });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  failureOf(cluster: string, job: JobKey): NodeFailure | undefined {
    this.expire();
    return this.entries.get(keyOf(cluster, job))?.failure;
  }

  /** How many entries it holds (the tests', and a reader's, view of its bound). */
  get size(): number {
    this.expire();
    return this.entries.size;
  }

  /** Drops the entries older than keepMs, from the oldest; stops at the first that is not. */
  private expire(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (now - entry.at < this.options.keepMs) break;
      this.entries.delete(key);
    }
  }
}
