// The Workload reconciler's decisions: dispatch's check `Ready` on the Workloads whose TrainJob may run.
import type { TrainJob, Workload } from '../../model/kube.js';
import { Labels } from '../../model/constants.js';
import { CheckStates, TrainJobConditions, WorkloadConditions } from '../../model/constants.js';
import { isConditionTrue } from '../objects/conditions.js';
import { isBeingDeleted } from '../objects/deletion.js';
import { describeObject } from '../objects/describe.js';
import type { PlannedWrite } from '../objects/planned-write.js';
import { checkStateOf, isWorkloadInactive } from '../objects/workloads.js';
import { isHeldMarked } from '../operations/facts.js';
import { dispatchLabelProblems } from '../operations/identity.js';
import type { OperationConfig } from '../operations/observed.js';
import { checkStateWrite, type ControllerDecision } from './decision.js';

/** Why the Workload is not to be marked, its own state alone (see readyDecision); undefined when it is. */
function workloadProblem(workload: Workload, config: OperationConfig): string | undefined {
  const checkName = config.kueue.admissionCheck;
  if (workload.metadata?.namespace !== config.namespace) return `not in namespace ${config.namespace}`;
  if (isBeingDeleted(workload)) return 'being deleted';
  const entry = checkStateOf(workload, checkName);
  if (entry === undefined) return `does not list admission check ${checkName}`;
  if (entry.state !== CheckStates.pending) {
    return `admission check ${checkName} is ${JSON.stringify(entry.state)}, not ${CheckStates.pending}`;
  }
  if (!isConditionTrue(workload, WorkloadConditions.quotaReserved)) {
    return `condition ${WorkloadConditions.quotaReserved} is not True`;
  }
  if (isWorkloadInactive(workload)) return 'spec.active is false';
  if (isConditionTrue(workload, WorkloadConditions.finished)) return `condition ${WorkloadConditions.finished} is True`;
  return undefined;
}

/** Why the Workload's TrainJob (by its job-uid label) is not to run (see readyDecision); undefined when it may. */
export function trainJobProblem(workload: Workload, trainJob: TrainJob | undefined): string | undefined {
  const uid = workload.metadata?.labels?.[Labels.kueueJobUid];
  if (trainJob === undefined || uid === undefined || trainJob.metadata?.uid !== uid) {
    return `no TrainJob of UID ${JSON.stringify(uid)} was read`;
  }
  const job = describeObject('TrainJob', trainJob);
  const labels = dispatchLabelProblems(trainJob);
  if (labels.length > 0) return labels.join('; ');
  if (isHeldMarked(trainJob)) return `${job} is held`;
  if (isBeingDeleted(trainJob)) return `${job} is being deleted`;
  for (const type of [TrainJobConditions.complete, TrainJobConditions.failed]) {
    if (isConditionTrue(trainJob, type)) return `${job}: condition ${type} is True`;
  }
  return undefined;
}

/** The status patch that sets dispatch's check Ready, testing that the entry is still the check's and Pending. */
function readyWrite(workload: Workload, trainJob: TrainJob, config: OperationConfig, now: string): PlannedWrite {
  return checkStateWrite(workload, config, now, {
    from: CheckStates.pending,
    to: CheckStates.ready,
    message: `${describeObject('TrainJob', trainJob)} carries dispatch's labels and is not held`,
  });
}

/**
 * Whether dispatch's check on one Workload is to be set `Ready`, and the patch that does it:
 * the Workload is in the configured namespace and not being deleted, active, not finished, lists
 * the check as `Pending`, has `QuotaReserved: True`, and its TrainJob (by the job-uid label)
 * carries dispatch's labels, is not held and has not ended. Anything else: none, and why.
 */
export function readyDecision(
  workload: Workload,
  trainJob: TrainJob | undefined,
  config: OperationConfig,
  now: string,
): ControllerDecision {
  const problem = workloadProblem(workload, config) ?? trainJobProblem(workload, trainJob);
  // trainJobProblem names a missing TrainJob; the second test only tells the compiler so.
  if (problem !== undefined || trainJob === undefined) {
    return { action: 'none', reason: `${describeObject('Workload', workload)}: ${problem ?? 'no TrainJob was read'}` };
  }
  return { action: 'patch', write: readyWrite(workload, trainJob, config, now) };
}

/** The TrainJobs read, by UID, for workloadsToMarkReady. */
export function trainJobsByUid(trainJobs: readonly TrainJob[]): Record<string, TrainJob> {
  return Object.fromEntries(trainJobs.flatMap((t) => (t.metadata?.uid ? [[t.metadata.uid, t]] : [])));
}

/** A Workload and its TrainJob as listed, and the write the decision makes from them. */
export interface Candidate {
  workload: Workload;
  trainJob: TrainJob;
  write: PlannedWrite;
}

/** The TrainJob of a Workload among those read, by its job-uid label. */
export const trainJobOf = (workload: Workload, trainJobs: Readonly<Record<string, TrainJob>>): TrainJob | undefined => {
  const uid = workload.metadata?.labels?.[Labels.kueueJobUid];
  return uid === undefined ? undefined : trainJobs[uid];
};

/** A decision on one Workload and its TrainJob as read (readyDecision, undoReadyDecision). */
export type WorkloadDecision = (workload: Workload, trainJob: TrainJob | undefined, config: OperationConfig, now: string) => ControllerDecision;

/** What a pass read (the Workloads, the TrainJobs by UID), the configuration and the time it stamps. */
export type PassRead = [workloads: readonly Workload[], trainJobs: Readonly<Record<string, TrainJob>>, config: OperationConfig, now: string];

/** The Workloads a decision writes, with their TrainJob as read and the write, in their order. */
export function candidatesOf(decide: WorkloadDecision, ...[workloads, trainJobs, config, now]: PassRead): Candidate[] {
  return workloads.flatMap((workload) => {
    const trainJob = trainJobOf(workload, trainJobs);
    const decision = decide(workload, trainJob, config, now);
    return decision.action === 'patch' && trainJob !== undefined ? [{ workload, trainJob, write: decision.write }] : [];
  });
}

/**
 * The Workloads readyDecision accepts with their TrainJob as listed. The list (or the watch-fed
 * copy) only narrows: each is decided again on a read of its TrainJob made afterwards.
 */
export const readyCandidates = (...read: PassRead): Candidate[] => candidatesOf(readyDecision, ...read);

/** The status patches of one pass of the controller over the namespace's Workloads, in their order. */
export function workloadsToMarkReady(...read: PassRead): PlannedWrite[] {
  return readyCandidates(...read).map((c) => c.write);
}
