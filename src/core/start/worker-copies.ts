// Step 5 with MultiKueue (docs/contract.md §11, docs/multikueue.md): the runtime copy is made on the
// manager cluster first, then on every worker cluster of the configuration. What each cluster
// answered decides the step, here, from the answers alone: every copy made, the step succeeds; one
// refused or unanswered, the step fails and this attempt's copies are undone, on every cluster
// that answered (an unanswered cluster's copy, if its create landed, is the collector's:
// collect-copies.ts). Never a copy another attempt or the caller owns: only the UIDs this attempt's
// creates made or adopted (adopted: carrying its token, src/core/start/create-conflict.ts), and none
// when the manager's copy belongs to a TrainJob an earlier run of this attempt made and the Start
// leaves (src/core/start/earlier-start.ts): that TrainJob may run on any worker.
import type { RefusalType } from '../objects/refusal-type.js';

/** What one worker cluster answered to the create of its copy. */
export type WorkerCopyAnswer = { cluster: string } & (
  | { do: 'created' | 'adopt'; uid: string }
  | { do: 'refuse'; type: RefusalType; reasons: string[] }
  | { do: 'unanswered'; reason: string }
);

/** The manager cluster's copy, as step 5 made or adopted it there. */
export interface ManagerCopy {
  uid: string;
  /** Set when the copy is owned by a TrainJob an earlier run of this attempt made (the Start adopts it). */
  earlierTrainJobUid?: string;
}

/** A copy the undo deletes by UID: on a worker cluster, or (no cluster) on the manager. */
export interface CopyToUndo {
  cluster?: string;
  uid: string;
}

export type WorkerCopiesVerdict =
  | { ok: true }
  /** The step's failure, and the copies this attempt made that are undone before it is answered. */
  | { ok: false; type: RefusalType | 'ErrUnreachable'; reasons: string[]; undo: CopyToUndo[] };

/** "worker cluster w1: ..." */
export const onWorker = (cluster: string, reason: string) => `worker cluster ${cluster}: ${reason}`;

/**
 * The step's verdict from the manager's copy and every worker cluster's answer. A definite refusal
 * anywhere makes the step that refusal (retrying cannot help); otherwise a cluster that did not
 * answer makes it ErrUnreachable (the caller may retry the Start).
 */
export function judgeWorkerCopies(manager: ManagerCopy, answers: readonly WorkerCopyAnswer[]): WorkerCopiesVerdict {
  const refused = answers.flatMap((a) => (a.do === 'refuse' ? [a] : []));
  const unanswered = answers.flatMap((a) => (a.do === 'unanswered' ? [a] : []));
  if (refused.length === 0 && unanswered.length === 0) return { ok: true };
  const reasons = [
    ...refused.flatMap((a) => a.reasons.map((r) => onWorker(a.cluster, r))),
    ...unanswered.map((a) => onWorker(a.cluster, a.reason)),
  ];
  // A refusal for a missing permission is the gate's (ErrReadOnly) only when no cluster refused the object itself.
  const type = refused.length === 0 ? 'ErrUnreachable' : refused.some((a) => a.type === 'ErrRejected') ? 'ErrRejected' : 'ErrReadOnly';
  if (manager.earlierTrainJobUid !== undefined) return { ok: false, type, reasons, undo: [] };
  const made = answers.flatMap((a) => (a.do === 'created' || a.do === 'adopt' ? [{ cluster: a.cluster, uid: a.uid }] : []));
  return { ok: false, type, reasons, undo: [...made, { uid: manager.uid }] };
}

/** The worker clusters a Start's copy is made on: those of `kueue.multiKueue`, in Kueue mode only. */
export function workerClustersOf(config: { mode?: string | undefined; kueue?: { multiKueue?: { clusters: readonly { name: string; kubeconfig: string }[] } | undefined } | undefined }): readonly { name: string; kubeconfig: string }[] {
  return config.mode === 'kueue' ? (config.kueue?.multiKueue?.clusters ?? []) : [];
}

/**
 * How long, from step 5's start, the worker clusters are asked before one that has not answered
 * is given up on: two thirds of the step's bound (CallBound), so that the last third is left to
 * undo this attempt's copies before the bound ends the step. Without a bound, `fallbackMs`.
 */
export const workerDeadlineMs = (boundMs: number, fallbackMs: number) => (boundMs > 0 ? Math.floor((boundMs * 2) / 3) : fallbackMs);
