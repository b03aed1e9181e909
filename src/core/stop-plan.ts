// What the compensation of a Start deletes (docs/contract.md §7): the TrainJob, and the runtime copy
// too when step 7 never made the TrainJob its owner (else the garbage collector deletes it). An
// object whose UID the workflow learnt is deleted by that UID. One whose create went unanswered is
// looked up by name and deleted only if it carries this attempt's token, and, for the copy, has no
// owner (an owned copy belongs to a TrainJob, which the garbage collector answers for). So an
// object of the same name that this attempt did not create is never touched.
import type { KubeObject } from '../model/kube.js';
import { attemptTokenOf } from './create-conflict.js';

export type StopObject = 'trainJob' | 'copy';

/** One object the stop deletes: by its known UID, or, without one, looked up by name. */
export interface StopTarget {
  object: StopObject;
  uid?: string;
}

export interface StopState {
  /** UIDs the workflow learnt from steps 5 and 6. */
  trainJobUid?: string;
  copyUid?: string;
  /** Whether step 7 set the copy's owner. */
  ownerSet: boolean;
}

/** The objects to delete, the TrainJob first. */
export function stopTargets(state: StopState): StopTarget[] {
  const trainJob: StopTarget = { object: 'trainJob', ...(state.trainJobUid ? { uid: state.trainJobUid } : {}) };
  if (state.ownerSet) return [trainJob];
  return [trainJob, { object: 'copy', ...(state.copyUid ? { uid: state.copyUid } : {}) }];
}

export type LookupDecision = { delete: true; uid: string } | { delete: false };

/**
 * Whether an object looked up by name (undefined: the read answered 404) is this attempt's to
 * delete, and by which UID.
 */
export function decideLookedUp(object: StopObject, found: KubeObject | undefined, token: string): LookupDecision {
  if (found === undefined || attemptTokenOf(found) !== token) return { delete: false };
  const owned = (found.metadata?.ownerReferences ?? []).length > 0;
  if (object === 'copy' && owned) return { delete: false };
  return { delete: true, uid: found.metadata?.uid ?? '' };
}
