// WatchTrainJob(TrainJobRef) -> Outcome (docs/contract.md §9): waits until the TrainJob has
// completed, failed or gone, and answers how it ended, with the exit code of its first failed node
// container. DispatchPhase and the current details follow the phase as it learns it.
//
// The patch WATCH_WOKEN: runs begun since it wait holding no activity, woken by the worker's watch
// and bounded by a durable timer (docs/contract.md §9b; watch-woken.ts); runs begun before it,
// whose histories replay them, keep waiting in one heartbeating activity (watch-by-activity.ts)
// until they end or continue as new. The second argument is only what a run carries into the next
// when it continues as new; callers pass the ref alone.
//
// The patch WATCH_BRANCH_AT_START: runs begun since it decide their branch when they start, before
// any local activity, and take both patches' new branches; runs begun before it ask for WATCH_WOKEN
// after the ref's check and for WATCH_FIRST_TASK_OPEN after the first read, where their markers
// are (a replay can hand a local activity's result over a task early: src/contract/names.ts).
import { patched } from '@temporalio/workflow';
import { WATCH_BRANCH_AT_START, WATCH_WOKEN } from '../contract/names.js';
import type { Outcome } from '../model/operations.js';
import { firstTaskStaysOpen } from './first-task-open.js';
import { runOperation } from './run-operation.js';
import { watchByActivity } from './watch-by-activity.js';
import { Wakes, watchWoken, type WatchCarried } from './watch-woken.js';

export function WatchTrainJob(input: unknown, carried?: WatchCarried): Promise<Outcome> {
  // Before the first await: a wake that comes while the run starts is kept, not dropped.
  const wakes = new Wakes();
  const atStart = patched(WATCH_BRANCH_AT_START);
  return runOperation('watch', input, (ctx) => {
    if (atStart) return watchWoken(input, wakes, ctx, carried, firstTaskStaysOpen);
    return patched(WATCH_WOKEN) ? watchWoken(input, wakes, ctx, carried) : watchByActivity(input, ctx);
  });
}
