// Whether an operation after Start may touch the TrainJob of a ref at all (docs/contract.md §3, §9):
// it is in the configured namespace, and a TrainJob of the ref's UID carries dispatch's labels.
import { LabelValues, Labels } from '../../model/constants.js';
import type { KubeObject } from '../../model/kube.js';
import type { TrainJobRef } from '../../model/operations.js';
import { describeObject, show } from '../objects/describe.js';
import type { Observed } from './observed.js';
import { OPERATION_NAMES, type Operation } from '../../contract/names.js';

/** Why a TrainJob does not carry dispatch's labels (docs/contract.md §3); empty when it does. */
export function dispatchLabelProblems(trainJob: KubeObject): string[] {
  const labels = trainJob.metadata?.labels ?? {};
  const what = describeObject('TrainJob', trainJob);
  const problems: string[] = [];
  if (labels[Labels.managedBy] !== LabelValues.managedBy) {
    problems.push(
      `${what}: label ${Labels.managedBy} is ${show(labels[Labels.managedBy])}, not "${LabelValues.managedBy}"`,
    );
  }
  for (const key of [Labels.jobId, Labels.generation, Labels.submission]) {
    if (typeof labels[key] !== 'string' || labels[key] === '') {
      problems.push(`${what}: label ${key} is ${show(labels[key])}`);
    }
  }
  return problems;
}

/**
 * Why the operation may not touch the TrainJob of the ref (ErrRejected): a ref of another
 * namespace, or a TrainJob of the ref's UID that is not dispatch's. Empty when it may, and when no
 * TrainJob of that UID was read: that is Absent, not a refusal.
 */
export function identityRefusals(op: Operation, ref: TrainJobRef, observed: Observed): string[] {
  const head = `${OPERATION_NAMES[op]} of TrainJob ${ref.namespace}/${ref.name}`;
  if (ref.namespace !== observed.config.namespace) {
    return [`${head}: dispatch works in namespace ${observed.config.namespace} only`];
  }
  const trainJob = observed.trainJob;
  if (trainJob === undefined || trainJob.metadata?.uid !== ref.uid) return [];
  const meta = trainJob.metadata;
  const misplaced =
    meta.namespace !== ref.namespace || meta.name !== ref.name
      ? [`${head}: the TrainJob read is ${describeObject('TrainJob', trainJob)}`]
      : [];
  return [...misplaced, ...dispatchLabelProblems(trainJob).map((p) => `${head}: ${p}`)];
}
