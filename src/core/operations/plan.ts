// What a plan of Open, Hold or Release is (plans.ts, and the plans from before the operations
// became declarative, plans-prepatch.ts).
import type { TrainJobState } from '../../model/operations.js';
import type { PlannedWrite } from '../objects/planned-write.js';

/**
 * The changes: the operations that change whether a started TrainJob may run, by a plan of the
 * start gate's facts: read, plan, write, read and plan again.
 */
export type TrainJobChange = 'open' | 'hold' | 'release';

export type OperationPlan =
  /** ErrRejected: the operation cannot apply to what was read. Nothing is written. `state`: the phase read, when a TrainJob was. */
  | { kind: 'refuse'; reasons: string[]; state?: TrainJobState }
  /** The TrainJob is gone (or being deleted): answer Absent, not an error. */
  | { kind: 'absent'; state: TrainJobState }
  /** Already as the operation wants it: answer the state. */
  | { kind: 'done'; state: TrainJobState }
  /** Make these writes in order, then read and plan again. `state` is the state as read. */
  | { kind: 'write'; writes: PlannedWrite[]; state: TrainJobState }
  /** Nothing can be written yet (Kueue has not made the Workload): read and plan again later. */
  | { kind: 'wait'; reasons: string[]; state: TrainJobState };

export interface PlanOptions {
  /** This run of the operation has already made writes (its workflow history says so). */
  resumed?: boolean;
  /**
   * Hold in Kueue mode with a Workload read: its spec.active false before the TrainJob's held
   * annotation (patch hold-deactivates-workload-first, retired: today's workflow asks it of every
   * Hold that read its Workload). Without it, the order of the builds from before the patch, which
   * run until they drain (the race tests pit the two): the annotation first. Open and Release do
   * not read it.
   */
  workloadFirst?: boolean;
}

export const writesOrDone = (writes: PlannedWrite[], state: TrainJobState): OperationPlan =>
  writes.length === 0 ? { kind: 'done', state } : { kind: 'write', writes, state };
