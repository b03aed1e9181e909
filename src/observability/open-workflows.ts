// How many Watches are waiting and how many Starts are in flight, as Temporal's visibility counts
// the open workflows of the worker's task queue. Not counted in the worker: a workflow moves between
// workers (and is replayed without its sinks), so no worker's own tally of +1 and -1 adds up, while
// the server's count is the same from every replica (dashboards take the max over them).
import type { Client } from '@temporalio/client';
import { WorkflowTypes } from '../contract/names.js';
import type { Log } from './log.js';

/** The ages a waiting Watch is counted past (dispatch_watches_waited_longer_than{duration}). */
export const WATCH_WAIT_BOUNDS = { '1h': 3600, '24h': 24 * 3600, '168h': 7 * 24 * 3600 } as const;
export type WatchWaitBound = keyof typeof WATCH_WAIT_BOUNDS;

export interface OpenWorkflowCounts {
  watchesWaiting: number;
  /** Waiting Watches whose current run started more than each bound ago. */
  watchesWaitedLongerThan: Record<WatchWaitBound, number>;
  startsInFlight: number;
}

/** One visibility query per figure, each within this bound. */
const COUNT_TIMEOUT_MS = 5_000;
/** Counts are reused this long: two scrapes close together (two Prometheus replicas) ask once. */
const FRESH_MS = 10_000;

const quoted = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** The visibility query of a workflow type's open runs on a task queue, started before a time if given. */
export function openQuery(workflowType: string, taskQueue: string, startedBeforeMs?: number): string {
  const before = startedBeforeMs === undefined ? '' : ` AND StartTime < ${quoted(rfc3339(startedBeforeMs))}`;
  return `WorkflowType = ${quoted(workflowType)} AND ExecutionStatus = 'Running' AND TaskQueue = ${quoted(taskQueue)}${before}`;
}

/**
 * Counts on demand (a scrape), at most every FRESH_MS; concurrent callers share one count. A count
 * that fails answers undefined (the gauges then have no sample, rather than a stale one), logged
 * when that starts and when it ends.
 */
export function openWorkflowCounter(
  client: Client,
  taskQueue: string,
  log: Log,
): () => Promise<OpenWorkflowCounts | undefined> {
  let last: { at: number; counts: Promise<OpenWorkflowCounts | undefined> } | undefined;
  let failing = false;
  const count = async (query: string) =>
    (await client.withDeadline(Date.now() + COUNT_TIMEOUT_MS, () => client.workflow.count(query))).count;

  async function countAll(now: number): Promise<OpenWorkflowCounts | undefined> {
    try {
      const bounds = Object.entries(WATCH_WAIT_BOUNDS) as [WatchWaitBound, number][];
      const [watchesWaiting, startsInFlight, ...older] = await Promise.all([
        count(openQuery(WorkflowTypes.watch, taskQueue)),
        count(openQuery(WorkflowTypes.start, taskQueue)),
        ...bounds.map(([, seconds]) => count(openQuery(WorkflowTypes.watch, taskQueue, now - seconds * 1000))),
      ]);
      if (failing) log('open workflow counts answered again');
      failing = false;
      const watchesWaitedLongerThan = Object.fromEntries(bounds.map(([bound], i) => [bound, older[i] ?? 0])) as Record<WatchWaitBound, number>;
      return { watchesWaiting: watchesWaiting ?? 0, startsInFlight: startsInFlight ?? 0, watchesWaitedLongerThan };
    } catch (error) {
      if (!failing) log('open workflow counts unanswered: dispatch_watches_waiting and dispatch_starts_in_flight have no sample', { error: (error as Error).message }, 'warn');
      failing = true;
      return undefined;
    }
  }

  return () => {
    const now = Date.now();
    if (!last || now - last.at >= FRESH_MS) last = { at: now, counts: countAll(now) };
    return last.counts;
  };
}
