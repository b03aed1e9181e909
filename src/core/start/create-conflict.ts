// What a create that answered 409 Conflict does next (steps 5 and 6), decided from what the read
// that followed the 409 saw. The object may be gone again (create again), being deleted by an
// earlier undo (wait, then create again), or there: then the step's rule says whether it is
// what this Start would have created (adopt it) or someone else's (refuse, ErrRejected).
// Step 5 reuses a runtime copy with no owner and the source runtime's spec (seed 000,
// copyReuseReasons); step 6 adopts a TrainJob carrying this attempt's token, the earlier unanswered
// create of this attempt (docs/contract.md §7).
import { Annotations, Trainer } from '../../model/constants.js';
import type { KubeObject, TrainerRuntime, TrainJob } from '../../model/kube.js';
import { isBeingDeleted } from '../objects/deletion.js';
import { copyReuseReasons } from './copy-reuse.js';
import type { ConflictDecision, DecideConflict } from '../objects/create-decision.js';

/** The attempt token an object carries, if any. */
export const attemptTokenOf = (object: KubeObject): string | undefined =>
  object.metadata?.annotations?.[Annotations.attemptToken];

/** When an existing object of the name is the one this Start would have created. */
export type ConflictRule =
  /**
   * Step 5: a runtime copy with no owner whose spec equals the one wanted (copyReuseReasons); with
   * `token` (a MultiKueue worker cluster's copy, docs/multikueue.md), one carrying that attempt token too.
   */
  | { adopt: 'unowned-same-spec'; wanted: TrainerRuntime; token?: string }
  /**
   * Step 6: a TrainJob carrying this attempt's token. When it is not ours, the runtime copy named
   * `copyName` is kept if that TrainJob runs on it.
   */
  | { adopt: 'same-token'; token: string | undefined; copyName: string };

export interface Conflict {
  /** The object being created, e.g. "TrainJob ml/dj-x-s1", for the wait and the reasons. */
  where: string;
  /** What the read after the 409 saw: the object, or undefined when it answered 404 (gone again). */
  existing: KubeObject | undefined;
  rule: ConflictRule;
}

/** Whether a TrainJob runs on the runtime copy of the given name. */
export function refersTo(trainJob: KubeObject, copyName: string): boolean {
  const ref = (trainJob as Partial<TrainJob>).spec?.runtimeRef;
  return ref?.kind === Trainer.trainingRuntimeKind && ref.name === copyName;
}

/** Step 6's rule: adopt only a TrainJob carrying this attempt's token (a missing token is nobody's). */
function sameToken(where: string, existing: KubeObject, token: string | undefined, copyName: string): ConflictDecision {
  const theirs = attemptTokenOf(existing);
  if (token !== undefined && theirs === token) return { do: 'adopt', uid: existing.metadata?.uid ?? '' };
  return {
    do: 'refuse',
    type: 'ErrRejected',
    reasons: [`${where} already exists with attempt token ${theirs ?? '(none)'}; this attempt's is ${token}`],
    keepCopy: refersTo(existing, copyName),
  };
}

/** What to do after a create's 409, from what the read after it saw. */
export function decideConflict({ where, existing, rule }: Conflict): ConflictDecision {
  if (existing === undefined) return { do: 'retry' };
  if (isBeingDeleted(existing)) return { do: 'wait', reason: `${where} to finish deleting` };
  if (rule.adopt === 'same-token') return sameToken(where, existing, rule.token, rule.copyName);
  const reasons = copyReuseReasons(existing as TrainerRuntime, rule.wanted);
  const theirs = attemptTokenOf(existing);
  if (rule.token !== undefined && theirs !== rule.token) {
    reasons.push(`${where} already exists with attempt token ${theirs ?? '(none)'}; this attempt's is ${rule.token}`);
  }
  if (reasons.length > 0) return { do: 'refuse', type: 'ErrRejected', reasons };
  return { do: 'adopt', uid: existing.metadata?.uid ?? '' };
}

/** A rule as the create loop takes it (src/kube/create-or-adopt.ts). */
export const conflictRule = (rule: ConflictRule): DecideConflict => (existing, where) => decideConflict({ where, existing, rule });
