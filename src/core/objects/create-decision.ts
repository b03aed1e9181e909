// What a create that answered 409 Conflict does next, as the Kubernetes layer's create loop
// (src/kube/create-or-adopt.ts) carries it out: the caller's rule decides from what the read after
// the 409 saw (Start's rules of steps 5 and 6: src/core/start/create-conflict.ts).
import type { KubeObject } from '../../model/kube.js';
import type { RefusalType } from './refusal-type.js';

/** A refusal: its type, every reason, and whether the runtime copy must stay (step 6). */
export interface Refuse {
  do: 'refuse';
  type: RefusalType;
  reasons: string[];
  keepCopy?: boolean;
}

export type ConflictDecision =
  /** Create again at once. */
  | { do: 'retry' }
  /** Pause, then create again; `reason` names what is awaited. */
  | { do: 'wait'; reason: string }
  /** The existing object is this Start's: use it. */
  | { do: 'adopt'; uid: string }
  | Refuse;

/**
 * The caller's decision after a 409: from what the read saw (`existing`, undefined when it answered
 * 404) and the object's address (`where`, e.g. "TrainJob ml/dj-x-s1", for the reasons).
 */
export type DecideConflict = (existing: KubeObject | undefined, where: string) => ConflictDecision;
