// The collection of the runtime copies on MultiKueue's worker clusters (docs/multikueue.md,
// "Collecting the worker clusters' copies"): a worker cluster's copy goes once the manager holds
// neither the copy of its attempt nor the TrainJob of its attempt. On the manager, step 7 makes the
// TrainJob the copy's owner, so the manager's copy lives exactly as long as the TrainJob (and, before
// step 7, as long as the Start that made it, which made the manager's copy first); a worker's copy
// has no owner there. Decided from what was read and nothing else, as Kueue's controllers do: two
// workers collecting at once, or one restarted, decide the same.
import { Labels, LabelValues } from '../../model/constants.js';
import type { KubeObject } from '../../model/kube.js';
import { isBeingDeleted } from '../objects/deletion.js';
import { attemptTokenOf } from './create-conflict.js';

/** What the collector read for one worker cluster's copy. */
export interface CopyFacts {
  /** The worker cluster's copy, as listed there. */
  copy: KubeObject;
  /** The manager's runtime copy of the same name (undefined: 404). */
  managerCopy: KubeObject | undefined;
  /** The manager's TrainJob of the same name (undefined: 404). */
  managerTrainJob: KubeObject | undefined;
  /** The copy's age from its creationTimestamp (the caller's clock; undefined when it has none), and how old it must be to go, in ms. */
  ageMs: number | undefined;
  graceMs: number;
}

export type CollectDecision = { do: 'delete'; uid: string; resourceVersion?: string } | { do: 'keep'; reason: string };

const keep = (reason: string): CollectDecision => ({ do: 'keep', reason });

/**
 * Whether a worker cluster's copy is only a candidate, from the copy alone: dispatch's, carrying an
 * attempt token, with no owner, not being deleted, and older than the grace. The collector reads
 * the manager only for candidates.
 */
export function candidateReason(copy: KubeObject, ageMs: number | undefined, graceMs: number): string | undefined {
  if (copy.metadata?.labels?.[Labels.managedBy] !== LabelValues.managedBy) return "it does not carry dispatch's labels";
  if (attemptTokenOf(copy) === undefined) return 'it carries no attempt token';
  if ((copy.metadata?.ownerReferences ?? []).length > 0) return "it has an owner: the worker cluster's garbage collector's";
  if (isBeingDeleted(copy)) return 'it is being deleted';
  if (ageMs === undefined || !(ageMs >= graceMs)) return 'it is younger than the grace (its Start may be making it)';
  return undefined;
}

/** What to do with a worker cluster's copy, from it and the manager's copy and TrainJob of its name. */
export function decideWorkerCopy(facts: CopyFacts): CollectDecision {
  const { copy, managerCopy, managerTrainJob } = facts;
  const notCandidate = candidateReason(copy, facts.ageMs, facts.graceMs);
  if (notCandidate) return keep(notCandidate);
  const token = attemptTokenOf(copy);
  if (managerCopy && attemptTokenOf(managerCopy) === token) return keep("the manager holds its attempt's copy");
  if (managerTrainJob && attemptTokenOf(managerTrainJob) === token) return keep("the manager holds its attempt's TrainJob");
  const { uid = '', resourceVersion } = copy.metadata ?? {};
  return { do: 'delete', uid, ...(resourceVersion ? { resourceVersion } : {}) };
}
