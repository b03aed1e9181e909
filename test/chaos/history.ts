// The record a chaos run keeps, which the checker judges: every call a lifecycle made and what it
// was answered, and the cluster and Temporal as they were once everything settled.
import type { ErrorType } from '../../src/model/errors.js';
import type { FindResult } from '../../src/model/results.js';
import type { LifecyclePlan, Operation } from './schedule.js';

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
}

/** One lifecycle as the driver saw it: its plan, its job's ids, and how it ended. */
export interface LifecycleRecord {
  plan: LifecyclePlan;
  /** The request's job id and submission, and the TrainJob name they give. */
  jobId: string;
  submission: number;
  name: string;
  /** Set when the lifecycle stopped early: its Start refused, or a call still unanswered at its deadline. */
  ended?: { how: 'refused' | 'gave-up'; op: Operation; reason: string };
}

/** An object of the final cluster: its name, UID, owners and the few facts the checker needs. */
export interface FinalObject {
  name: string;
  uid: string;
  owners: string[];
  deleting: boolean;
  /** The job-id label, when it carries one. */
  jobId?: string;
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
}

export interface RunHistory {
  seed: number;
  lifecycles: LifecycleRecord[];
  calls: CallRecord[];
}
