// The worker's slots and caches (docs/performance.md measured them): what the product's worker
// runs with unless its caller (the bench's BENCH_TUNING) says otherwise.
import type { WorkerOptions } from '@temporalio/worker';

/** Worker slots and caches: they change how much runs at once, never what a history holds. */
export type WorkerTuning = Pick<
  WorkerOptions,
  | 'maxConcurrentActivityTaskExecutions'
  | 'maxConcurrentActivityTaskPolls'
  | 'maxConcurrentLocalActivityExecutions'
  | 'maxConcurrentWorkflowTaskExecutions'
  | 'maxConcurrentWorkflowTaskPolls'
  | 'maxCachedWorkflows'
>;

/**
 * The SDK's defaults, except where docs/performance.md measured better:
 * - activity slots: each Kueue-mode Start holds one for its whole Workload wait. With the SDK's
 *   100, 300 Starts had 100 waiting and the other Starts' Kubernetes calls starved until CallBound
 *   (191 of 300 failed); with 2,000, 1,000 waited at once and all completed.
 * - cached workflows: the SDK sizes the cache by heap size (thousands on a large host). A Start
 *   runs steps 2-8 in two workflow tasks around the step 6 activity (the other calls are local
 *   activities), so it needs the cache for those and again when its Workload wait ends; the least
 *   recently used go first, and a waiting Start evicted is replayed when its wait ends. With 1,000 waiting Starts the worker was 468 MiB
 *   with 50 cached and 518 MiB with 200, and drained them in about the same time. 200: at least the
 *   Starts in flight at the bench's busiest level (128 callers), so that no Start is evicted between
 *   its two workflow tasks and replayed for the second (docs/performance.md).
 */
export const DEFAULT_WORKER_TUNING: WorkerTuning = {
  maxConcurrentActivityTaskExecutions: 2000,
  maxCachedWorkflows: 200,
};
