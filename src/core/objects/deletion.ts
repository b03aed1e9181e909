// An object's deletion state.
import type { KubeObject } from '../../model/kube.js';

/** Whether an object is being deleted (it has a deletionTimestamp, and finalizers or the garbage collector keep it for now). */
export function isBeingDeleted(object: KubeObject): boolean {
  return typeof object.metadata?.deletionTimestamp === 'string';
}
