// What the worker keeps in memory of an object it holds for a while (a feed's copy, a list the
// admission check controller reads whole): only what its checks decide from.
import { trimPod, trimTrainJob } from '../core/objects/observed-trim.js';
import { Trainer } from '../model/constants.js';
import type { KubeObject, Pod, TrainJob } from '../model/kube.js';
import { PODS, type NamespacedKind } from './objects.js';

/**
 * What is kept of an object of `kind`. A TrainJob: its trimmed form (observed-trim.ts: metadata,
 * spec.suspend, status.conditions), all that the checks and the admission check controller decide
 * from; its whole spec (trainer, runtime patches: several KB, ~20 KB in memory) times every
 * dispatch TrainJob of the namespace was most of a worker's memory with 10,000 Watches. A pod
 * (a worker cluster's, for the exit code): its trimmed form (trimPod), its node containers' ends.
 * Anything else without managedFields, which are half an object's size and which no check reads.
 */
export const keptOf =
  (kind: NamespacedKind) =>
  (object: KubeObject): KubeObject => {
    if (kind.plural === Trainer.trainJobPlural && kind.group === Trainer.group) return trimTrainJob(object as TrainJob);
    if (kind.plural === PODS.plural && kind.group === PODS.group) return trimPod(object as Pod);
    const { managedFields: _dropped, ...metadata } = object.metadata as NonNullable<KubeObject['metadata']> & { managedFields?: unknown };
    return { ...object, metadata };
  };
