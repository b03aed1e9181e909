// The order of a Kueue-mode Hold's two writes (docs/contract.md §9, patch
// `hold-deactivates-workload-first`, retired: docs/versioning.md). dispatch's admission check controller
// sets its check Ready on a read of the TrainJob that shows it not held, with a write conditioned on
// the Workload's resourceVersion. A Hold that marks the TrainJob first can land between that read and
// that write: the Ready applies, and Kueue may admit before the controller undoes it. A Hold that
// makes the Workload inactive first changes the Workload under that write, which then fails. With
// no Workload read yet there is nothing to write first: the annotation goes first, as before.
import { deprecatePatch } from '@temporalio/workflow';
import { HOLD_DEACTIVATES_WORKLOAD_FIRST } from '../contract/names.js';
import type { TrainJobChange } from '../core/operations/plan.js';
import { observedWorkload, type Observed } from '../core/operations/observed.js';

/**
 * Whether this plan of a Hold writes the Workload first: a Hold in Kueue mode that read its
 * TrainJob's Workload. The patch is retired (step 2): its deprecated marker goes where patched()
 * asked, at each such plan; the Holds recorded in the other order replay against the build recorded
 * before (test/histories/builds.json).
 */
export function holdWritesWorkloadFirst(op: TrainJobChange, observed: Observed): boolean {
  if (op !== 'hold' || observedWorkload(observed).workload === undefined) return false;
  deprecatePatch(HOLD_DEACTIVATES_WORKLOAD_FIRST);
  return true;
}
