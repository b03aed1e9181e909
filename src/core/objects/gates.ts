// Kueue's admission gates: the TrainJob's (and its Workload's) `kueue.x-k8s.io/admission-gated-by`,
// a comma-separated list of the gates that keep it from being admitted.
import { Annotations } from '../../model/constants.js';
import type { KubeObject } from '../../model/kube.js';
import type { JsonPatchOp } from '../../model/kube.js';
import { pointer, removeAnnotation } from './json-patch.js';

/** Kueue keeps admission-gated-by as a comma-separated list of gates. */
export function gatesOf(annotation: string | undefined): string[] {
  return (annotation ?? '')
    .split(',')
    .map((gate) => gate.trim())
    .filter((gate) => gate !== '');
}

/** dispatch's gate is still in the TrainJob's admission-gated-by: it was never opened (Kueue mode). */
export function hasGate(trainJob: KubeObject, gate: string): boolean {
  return gatesOf(trainJob.metadata?.annotations?.[Annotations.kueueAdmissionGatedBy]).includes(gate);
}

/** Takes `gate` out of admission-gated-by, keeping the other gates in order; the annotation goes when none is left. */
export function removeGateOp(trainJob: KubeObject, gate: string): JsonPatchOp {
  const rest = gatesOf(trainJob.metadata?.annotations?.[Annotations.kueueAdmissionGatedBy]).filter(
    (g) => g !== gate,
  );
  return rest.length === 0
    ? removeAnnotation(Annotations.kueueAdmissionGatedBy)
    : {
        op: 'replace',
        path: pointer('metadata', 'annotations', Annotations.kueueAdmissionGatedBy),
        value: rest.join(','),
      };
}
