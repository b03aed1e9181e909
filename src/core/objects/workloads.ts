// Kueue's Workloads: finding a TrainJob's, and reading its activity, its admission checks and
// whether Kueue deactivated it.
import { Labels } from '../../model/constants.js';
import type { AdmissionCheckState, Workload } from '../../model/kube.js';
import { ConditionStatus, KueueReasons, WorkloadConditions } from '../../model/constants.js';
import type { Condition } from '../../model/kube.js';
import { conditionOf, isConditionTrue } from './conditions.js';
import { isBeingDeleted } from './deletion.js';
import { byteOrder } from './describe.js';
import { isRecord, specOf } from './fields.js';

/** The label selector that finds the Workload Kueue made for a TrainJob. */
export function workloadLabelSelector(trainJobUid: string): string {
  return `${Labels.kueueJobUid}=${trainJobUid}`;
}

/** spec.active is false: Kueue does not admit it, and evicts it if admitted. The CRD defaults it to true. */
export function isWorkloadInactive(workload: Workload): boolean {
  return specOf(workload).active === false;
}

/** The Workload's entry for an admission check, by name. */
export function checkStateOf(workload: Workload | undefined, name: string): AdmissionCheckState | undefined {
  const checks = workload?.status?.admissionChecks;
  return Array.isArray(checks) ? checks.find((c) => isRecord(c) && c.name === name) : undefined;
}

/**
 * The condition saying Kueue deactivated the Workload itself (not a Hold, not an operator):
 * `DeactivationTarget` True (Kueue is about to set spec.active false), or spec.active false with
 * `Evicted` True and a reason `DeactivatedDueTo<cause>`. A plain `Deactivated` is someone else's.
 */
export function kueueDeactivation(workload: Workload): Condition | undefined {
  const target = conditionOf(workload, WorkloadConditions.deactivationTarget);
  if (target?.status === ConditionStatus.true) return target;
  const evicted = conditionOf(workload, WorkloadConditions.evicted);
  if (
    isWorkloadInactive(workload) &&
    evicted?.status === ConditionStatus.true &&
    evicted.reason?.startsWith(KueueReasons.deactivatedByKueuePrefix) === true
  ) {
    return evicted;
  }
  return undefined;
}

/**
 * The Workload of a TrainJob among those listed by its job-uid label: labelled with that UID, not
 * being deleted, preferring one not Finished (Kueue may make a new one for the same job), then
 * the first by name, so every reader picks the same.
 */
export function workloadOfTrainJob(
  workloads: readonly Workload[],
  trainJobUid: string,
): Workload | undefined {
  const candidates = workloads
    .filter((w) => w.metadata?.labels?.[Labels.kueueJobUid] === trainJobUid && !isBeingDeleted(w))
    .sort((a, b) => byteOrder(a.metadata?.name ?? '', b.metadata?.name ?? ''));
  return candidates.find((w) => !isConditionTrue(w, WorkloadConditions.finished)) ?? candidates[0];
}

/**
 * The TrainJob's own Workload among those a list by its job-uid label answered: owned by the
 * TrainJob (Kueue makes it the Workload's controller), then as every reader picks
 * (workloadOfTrainJob: not being deleted, not Finished, first by name), not the first listed.
 */
export function ownWorkload(workloads: readonly Workload[], trainJobUid: string): Workload | undefined {
  const owned = workloads.filter((w) => (w.metadata?.ownerReferences ?? []).some((o) => o.uid === trainJobUid));
  return workloadOfTrainJob(owned, trainJobUid);
}
