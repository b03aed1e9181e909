// The record a chaos run keeps, which the checker judges: every call a lifecycle made and what it
// was answered, and the cluster and Temporal as they were once everything settled.
import type { ErrorType } from '../../src/model/errors.js';
import type { FindResult } from '../../src/model/results.js';
import type { FaultKind, LifecyclePlan, Mode, Operation } from './schedule.js';

/** What one call was answered: a value, a typed failure, or an untyped one (a transport error, say). */
export type Answer =
  | { ok: true; value: unknown }
  | { ok: false; type: ErrorType | 'untyped'; message: string; step?: number; uid?: string };

export interface CallRecord {
  /** The lifecycle's index. */
  job: number;
  op: Operation | 'find';
  /** 0 for the call, 1 for its duplicate sent at the same time. */
  copy: number;
  /** The caller's tries of this call: 1 for the first; each retry after an answer that invites one adds 1. */
  try: number;
  invokedAt: number;
  answeredAt: number;
  answer: Answer;
  /** After an ok answer: the TrainJob of the lifecycle's name, read straight from the API server. */
  seen?: Seen;
}

/** What an admin read of the lifecycle's TrainJob found right after an answer. */
export interface Seen {
  /** The UID of the TrainJob of that name; absent when there was none. */
  uid?: string;
  deleting?: boolean;
  /** `Complete` or `Failed` when that condition was True. */
  finished?: 'Complete' | 'Failed';
}

/** One fault the nemesis applied, in the calls' clock (Date.now()). */
export interface FaultRecord {
  index: number;
  /** A fault the nemesis applied, or the run's first start of its workers (each refuses until its first preflight ends). */
  kind: FaultKind | 'workers-start';
  /** describeFault's words: "apiserver-restart, down 4.2 s". */
  what: string;
  /** When it was applied, and when its part was back (a proxy fault: when it was disarmed). */
  from: number;
  to: number;
  /** Proxy faults: the requests it took (one that took none explains nothing). */
  hits?: number;
  /** Worker kills: the killed worker's mode (it explains only that mode's calls). */
  mode?: Mode;
}

/** One lifecycle as the driver saw it: its plan, its job's ids, and how it ended. */
export interface LifecycleRecord {
  plan: LifecyclePlan;
  /** The request's job id and submission, and the TrainJob name they give. */
  jobId: string;
  submission: number;
  name: string;
  /**
   * Set when the lifecycle stopped early: its Start refused, or a call still unanswered at its
   * deadline (given up: `since` when the call was first sent, `at` when it was given up).
   */
  ended?: { how: 'refused' | 'gave-up'; op: Operation; reason: string; since?: number; at?: number };
}

/** An object of the final cluster: its name, UID, owners and the few facts the checker needs. */
export interface FinalObject {
  name: string;
  uid: string;
  owners: string[];
  deleting: boolean;
  /** The job-id label, when it carries one. */
  jobId?: string;
  /** Whether it carries dispatch's label (app.kubernetes.io/managed-by: dispatch, docs/contract.md §3). */
  managed?: boolean;
  /** Its creationTimestamp, in the calls' clock. */
  createdAt?: number;
  /** The attempt-token annotation (TrainJobs). */
  token?: string;
  /** Condition types whose status is True (TrainJobs). */
  conditions?: string[];
}

export interface FinalState {
  trainJobs: FinalObject[];
  copies: FinalObject[];
  workloads: FinalObject[];
  jobSets: FinalObject[];
  jobs: FinalObject[];
  pods: FinalObject[];
  /** Workflows of the run's task queues still running. */
  running: { workflowId: string; type: string }[];
  /** Find's answer per lifecycle index, asked once everything settled. */
  finds: Record<number, FindResult | { error: string }>;
  /** When the objects were listed (absent in older records: no object is then within a probe's bound). */
  readAt?: number;
}

export interface RunHistory {
  seed: number;
  lifecycles: LifecycleRecord[];
  calls: CallRecord[];
  /** The faults applied (absent in records made before they were kept here: nothing is excused then). */
  faults?: FaultRecord[];
  /** When the run started its workers, and when they were all polling. */
  workersStarted?: { from: number; to: number };
  /** When the lifecycles began and when the last one ended: the time the windows' coverage is a share of. */
  ran?: { from: number; to: number };
  /** The run's time budget for its lifecycles, and, when they outran it, when they were given up. */
  budget?: { ms: number; exceededAt?: number };
  /** A MultiKueue run's (--multikueue): its worker clusters, and the exit code its failing jobs end with. */
  multiKueue?: { workerClusters: string[]; failExitCode: number };
}
