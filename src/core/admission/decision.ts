// The admission check controller's decisions (Kueue mode, docs/contract.md §9).
// Like Kueue's own check controllers, it keeps no memory: each pass reads the AdmissionCheck, the
// namespace's Workloads and TrainJobs, and decides from them alone. Every write tests the object's
// UID and resourceVersion and the entry it changes, so two controllers running at once, or one
// restarted, make each write at most once and never undo each other's.
//
// It only ever sets dispatch's check `Ready`, never `Retry` or `Rejected`: a `Retry` would requeue
// the Workload at once and hold quota for a job that must not run. A held TrainJob's Workload is
// inactive and reserves no quota; should one be seen reserved anyway (between Hold's two writes),
// the held annotation keeps it Pending.
import type { PlannedWrite } from '../objects/planned-write.js';

/** A decision of the controller: a write to make, or why there is none. */
export type ControllerDecision =
  { action: 'none'; reason: string } | { action: 'patch'; write: PlannedWrite };
