// The start gate's two facts (docs/contract.md §9a) as a TrainJob records them: opened (plain, the
// `opened` annotation, or unsuspended; Kueue, dispatch's gate gone from admission-gated-by) and
// held (the `held` annotation is "true").
import type { Config } from '../../model/config.js';
import type { KubeObject } from '../../model/kube.js';
import { OperationAnnotations, OperationAnnotationValues } from '../../model/constants.js';
import { specOf } from '../objects/fields.js';
import { hasGate } from '../objects/gates.js';

/** Plain mode: Open has recorded the TrainJob opened (the `opened` annotation is "true"). */
export function isOpenedMarked(trainJob: KubeObject): boolean {
  return trainJob.metadata?.annotations?.[OperationAnnotations.opened] === OperationAnnotationValues.opened;
}

export function isHeldMarked(trainJob: KubeObject): boolean {
  return trainJob.metadata?.annotations?.[OperationAnnotations.held] === OperationAnnotationValues.held;
}

/** spec.suspend is true. The CRD defaults it to false. */
export function isSuspended(trainJob: KubeObject): boolean {
  return specOf(trainJob).suspend === true;
}

/**
 * The start gate's first fact (docs/contract.md §9a): the TrainJob was opened. Kueue mode: dispatch's
 * gate is gone from admission-gated-by. Plain mode: the `opened` annotation is "true"; a TrainJob
 * that is not suspended was opened too (by an Open from before the annotation existed).
 */
export function isOpened(trainJob: KubeObject, config: Pick<Config, 'mode' | 'kueue'>): boolean {
  if (config.mode === 'kueue') return !hasGate(trainJob, config.kueue.gate);
  return isOpenedMarked(trainJob) || !isSuspended(trainJob);
}

/**
 * What the caller has done to the TrainJob since Start made it: "opened", "held", "opened and
 * held", or undefined (§7). Start's undo and a retried Start's adoption leave such a TrainJob
 * alone, and their reasons name it.
 */
export function takenOverBy(trainJob: KubeObject, config: Pick<Config, 'mode' | 'kueue'>): string | undefined {
  const what = [...(isOpened(trainJob, config) ? ['opened'] : []), ...(isHeldMarked(trainJob) ? ['held'] : [])];
  return what.length > 0 ? what.join(' and ') : undefined;
}
