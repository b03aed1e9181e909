// Why a Watch does not end in the run's first pass (patch `watch-first-task-open`, docs/versioning.md).
//
// Core (TypeScript SDK 1.24) writes its internal flags (which of its own behaviours a history was
// made with: a patch's TemporalChangeVersion upsert, terminal commands last) into the first workflow
// task it completes, and counts them written even when the server refuses that completion. The
// server refuses a task that ends the workflow while signals came in during it (UnhandledCommand),
// and a Watch's wakes come whenever its TrainJob changes. The task after such a refusal then records
// no flags, and a replay of that history (a worker with nothing cached, after a restart) reads the
// patch marker without them and fails: "Non-deprecated patch marker encountered for change
// watch-woken, but there is no corresponding change command". A task that only starts a timer is
// never refused for signals; so a Watch whose first read already answers (its TrainJob finished or
// gone) waits a 1 ms timer before it ends, and its first task always completes.
import { patched, sleep } from '@temporalio/workflow';
import { WATCH_FIRST_TASK_OPEN } from '../contract/names.js';

/** How a Watch keeps its first task open before it ends in the run's first pass. */
export type FirstTaskOpen = () => Promise<void>;

/** Runs begun before patch watch-branch-at-start: asks for the patch there, after the read; one 1 ms timer on the new branch. */
export const keepFirstTaskOpen: FirstTaskOpen = async () => {
  if (patched(WATCH_FIRST_TASK_OPEN)) await sleep(1);
};

/** Runs begun under watch-branch-at-start, which decided at their start: one 1 ms timer, asking nothing. */
export const firstTaskStaysOpen: FirstTaskOpen = async () => {
  await sleep(1);
};
