// What the admission check controller counts: each worker's own, read by its metrics
// (src/observability/state-metrics.ts) and kept by its passes (src/worker/admission/).

/** What the controller has done since it was made; every worker's own. */
export interface AdmissionCounters {
  passes: number;
  /** Status writes that applied: the AdmissionCheck set Active. */
  activeWrites: number;
  /** Status writes that applied: a Workload's check set Ready. */
  readyWrites: number;
  /** Status writes that applied: a Ready undone because its TrainJob is held (Pending, or Retry once admitted). */
  undoWrites: number;
  /** Status writes that applied: a Ready written again for MultiKueue to nominate a worker cluster (multikueue-nudge.ts). */
  nudgeWrites: number;
  /** Writes whose object had changed or gone since it was read (another writer came first). */
  stale: number;
  /** Calls the API did not answer; the next pass tries again. */
  unanswered: number;
  /** Definite refusals other than a stale write (e.g. 403, a 422 naming a cause). */
  refused: number;
}

/** The passes' counters, and how many passes ended complete (clean) or incomplete; metrics read them. */
export interface AdmissionControllerCounters extends AdmissionCounters {
  complete: number;
  incomplete: number;
}
