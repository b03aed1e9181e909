// The Workload reconciler's decisions: dispatch's check `Ready` on the Workloads whose TrainJob may run.
import type { TrainJob, Workload } from '../../model/kube.js';
import { Labels } from '../../model/constants.js';
import { CheckStates, TrainJobConditions, WorkloadConditions } from '../../model/lifecycle-constants.js';
import { isConditionTrue } from '../objects/conditions.js';
import { isBeingDeleted } from '../objects/deletion.js';
import { describeObject } from '../objects/describe.js';
import { pointer, preconditions } from '../objects/json-patch.js';
import type { PlannedWrite } from '../objects/planned-write.js';
import { isWorkloadInactive } from '../objects/workloads.js';
import { isHeldMarked } from '../operations/facts.js';
import { dispatchLabelProblems } from '../operations/identity.js';
import type { OperationConfig } from '../operations/observed.js';
import type { ControllerDecision } from './decision.js';

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
  const what = describeObject('Workload', workload);
  const none = (why: string): ControllerDecision => ({ action: 'none', reason: `${what}: ${why}` });
  const checkName = config.kueue.admissionCheck;
  if (workload.metadata?.namespace !== config.namespace) return none(`not in namespace ${config.namespace}`);
  if (isBeingDeleted(workload)) return none('being deleted');
  const checks = Array.isArray(workload.status?.admissionChecks) ? workload.status.admissionChecks : [];
  const index = checks.findIndex((c) => typeof c === 'object' && c !== null && c.name === checkName);
  const entry = checks[index];
  if (entry === undefined) return none(`does not list admission check ${checkName}`);
  if (entry.state !== CheckStates.pending) {
    return none(`admission check ${checkName} is ${JSON.stringify(entry.state)}, not ${CheckStates.pending}`);
  }
  if (!isConditionTrue(workload, WorkloadConditions.quotaReserved)) {
    return none(`condition ${WorkloadConditions.quotaReserved} is not True`);
  }
  if (isWorkloadInactive(workload)) return none('spec.active is false');
  if (isConditionTrue(workload, WorkloadConditions.finished)) {
    return none(`condition ${WorkloadConditions.finished} is True`);
  }

  const uid = workload.metadata?.labels?.[Labels.kueueJobUid];
  if (trainJob === undefined || uid === undefined || trainJob.metadata?.uid !== uid) {
    return none(`no TrainJob of UID ${JSON.stringify(uid)} was read`);
  }
  const job = describeObject('TrainJob', trainJob);
  const labels = dispatchLabelProblems(trainJob);
  if (labels.length > 0) return none(labels.join('; '));
  if (isHeldMarked(trainJob)) return none(`${job} is held`);
  if (isBeingDeleted(trainJob)) return none(`${job} is being deleted`);
  for (const type of [TrainJobConditions.complete, TrainJobConditions.failed]) {
    if (isConditionTrue(trainJob, type)) return none(`${job}: condition ${type} is True`);
  }

  const ready = {
    ...entry,
    state: CheckStates.ready,
    message: `${job} carries dispatch's labels and is not held`,
    lastTransitionTime: now,
  };
  const at = (...rest: string[]) => pointer('status', 'admissionChecks', index, ...rest);
  return {
    action: 'patch',
    write: {
      kind: 'Workload',
      namespace: config.namespace,
      name: workload.metadata?.name ?? '',
      uid: workload.metadata?.uid ?? '',
      subresource: 'status',
      patch: [
        ...preconditions(workload),
        { op: 'test', path: at('name'), value: checkName },
        { op: 'test', path: at('state'), value: CheckStates.pending },
        { op: 'replace', path: at(), value: ready },
      ],
      summary: `${what}: admission check ${checkName} ${CheckStates.ready}`,
    },
  };
}

/** The TrainJobs read, by UID, for workloadsToMarkReady. */
export function trainJobsByUid(trainJobs: readonly TrainJob[]): Record<string, TrainJob> {
  return Object.fromEntries(trainJobs.flatMap((t) => (t.metadata?.uid ? [[t.metadata.uid, t]] : [])));
}

/** The status patches of one pass of the controller over the namespace's Workloads, in their order. */
export function workloadsToMarkReady(
  workloads: readonly Workload[],
  trainJobs: Readonly<Record<string, TrainJob>>,
  config: OperationConfig,
  now: string,
): PlannedWrite[] {
  return workloads.flatMap((workload) => {
    const uid = workload.metadata?.labels?.[Labels.kueueJobUid];
    const decision = readyDecision(workload, uid === undefined ? undefined : trainJobs[uid], config, now);
    return decision.action === 'patch' ? [decision.write] : [];
  });
}
