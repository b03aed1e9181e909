// What the undo of a Start deletes (docs/contract.md §7): the TrainJob, and the runtime copy
// too when step 7 never made the TrainJob its owner (else the garbage collector deletes it). The
// undo reads each object and decides here what to do with what it read; it then deletes with the
// UID and resourceVersion it read as preconditions, so that an Open or Hold racing the delete makes
// the delete fail, and the undo reads and decides again.
//
// It never deletes what the caller took over: a TrainJob opened or held, or one a retried Start
// adopted from an earlier run of its attempt, is left as it is, and so is its copy (the TrainJob
// runs on it). A TrainJob whose UID the run learnt is deleted unless so taken over. Without a UID
// (this run's own create went unanswered), the TrainJob of the name is deleted only when it
// carries this attempt's token and is still as Start wrote it (the read-back of step 8); a copy,
// only when it carries the token and has no owner. An object of the same name that this attempt
// did not create is never touched.
import type { KubeObject, TrainJob } from '../../model/kube.js';
import { attemptTokenOf } from './create-conflict.js';
import type { StartGateConfig } from './earlier-start.js';
import { takenOverBy } from '../operations/facts.js';
import { compareReadBack } from './readback.js';

export type UndoObject = 'trainJob' | 'copy';

/** One object the undo deletes: by its known UID, or, without one, looked up by name. */
export interface UndoTarget {
  object: UndoObject;
  uid?: string;
}

export interface UndoState {
  /** UIDs the workflow learnt from steps 5 and 6. */
  trainJobUid?: string;
  copyUid?: string;
  /** Whether step 7 set the copy's owner. */
  ownerSet: boolean;
}

/** The objects to delete, the TrainJob first. */
export function undoTargets(state: UndoState): UndoTarget[] {
  const trainJob: UndoTarget = { object: 'trainJob', ...(state.trainJobUid ? { uid: state.trainJobUid } : {}) };
  if (state.ownerSet) return [trainJob];
  return [trainJob, { object: 'copy', ...(state.copyUid ? { uid: state.copyUid } : {}) }];
}

/**
 * What the undo does with one object it read: delete it (with these preconditions), nothing (gone,
 * or not this attempt's), or leave it, this attempt's, for the reason given (the failure says it).
 */
export type UndoDecision =
  | { do: 'delete'; uid: string; resourceVersion?: string }
  | { do: 'nothing' }
  | { do: 'leave'; uid: string; reason: string };

/** What the undo knows of this Start when it decides. */
export interface UndoFacts {
  /** This attempt's token: an object looked up by name is this attempt's only if it carries it. */
  token: string;
  /** The UID the run learnt for this object, if any. */
  knownUid?: string;
  /**
   * The TrainJob as Start wrote it, which a TrainJob looked up by name must still read back as.
   * The preflight probe's undo has none: its TrainJob, under a name of its own, only needs the token.
   */
  wanted?: TrainJob;
  config: StartGateConfig;
  /** Step 5 adopted the TrainJob from an earlier, finished run of this attempt. */
  adoptedEarlier: boolean;
  /** This run asked for the TrainJob's create (step 6 began), so a TrainJob of the name may be its own. */
  createBegun: boolean;
}

const NOTHING: UndoDecision = { do: 'nothing' };

/** Whether `found` is this attempt's object: the UID the run learnt, or, without one, the token. */
function isOurs(found: KubeObject, facts: Pick<UndoFacts, 'knownUid' | 'token'>): boolean {
  return facts.knownUid ? found.metadata?.uid === facts.knownUid : attemptTokenOf(found) === facts.token;
}

/** The TrainJob's fate, given what a read by its name found (undefined: 404). */
export function decideTrainJobUndo(found: KubeObject | undefined, facts: UndoFacts): UndoDecision {
  if (found === undefined || !isOurs(found, facts)) return NOTHING;
  const uid = found.metadata?.uid ?? '';
  const where = `TrainJob ${found.metadata?.namespace ?? '?'}/${found.metadata?.name ?? '?'}`;
  if (facts.adoptedEarlier) return { do: 'leave', uid, reason: `${where} was left as it is: an earlier run of this attempt started it` };
  const caller = takenOverBy(found, facts.config);
  if (caller) return { do: 'leave', uid, reason: `${where} was left as it is: the caller has ${caller} it` };
  if (!facts.knownUid) {
    if (!facts.createBegun) return { do: 'leave', uid, reason: `${where} was left as it is: this run never created it (an earlier run of this attempt did)` };
    const changed = facts.wanted ? compareReadBack(facts.wanted, found as TrainJob, facts.config) : [];
    if (changed.length > 0) return { do: 'leave', uid, reason: `${where} was left as it is: it changed since Start wrote it: ${changed.join('; ')}` };
  }
  return withPreconditions(found);
}

/**
 * The copy's fate. It goes only when the TrainJob was not left (a TrainJob left runs on it) and it
 * has no owner (an owned copy is the garbage collector's); by lookup, only with this attempt's token.
 */
export function decideCopyUndo(found: KubeObject | undefined, facts: Pick<UndoFacts, 'token' | 'knownUid'> & { trainJobLeft: boolean }): UndoDecision {
  if (found === undefined || !isOurs(found, facts)) return NOTHING;
  if (facts.trainJobLeft || (found.metadata?.ownerReferences ?? []).length > 0) return NOTHING;
  return withPreconditions(found);
}

function withPreconditions(found: KubeObject): UndoDecision {
  const { uid = '', resourceVersion } = found.metadata ?? {};
  return { do: 'delete', uid, ...(resourceVersion ? { resourceVersion } : {}) };
}
