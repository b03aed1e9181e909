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

/** When the worker clusters are given up on in step 5, and how long one request to them may take. */
export interface WorkerWindow {
  deadline: number;
  requestTimeoutMs: number;
}

/**
 * The worker clusters' window in step 5: until two thirds of the step's bound (CallBound) from its
 * attempt's start, so that the last third is left to undo this attempt's copies before the bound
 * ends the attempt (a fold of steps 2 and 5 shares one bound: step 2's time is taken off). Each
 * request is cut at the window's end, but never below a sixth of the bound (capped by
 * `requestTimeoutMs`), so that a cluster that answers is asked at least once even when the window
 * is spent. Without a bound, three requests' time from now. The times are the caller's clock.
 */
export function workerWindow(bound: { boundMs: number; attemptStartMs: number; nowMs: number }, requestTimeoutMs: number): WorkerWindow {
  const { boundMs, nowMs } = bound;
  if (boundMs <= 0) return { deadline: nowMs + 3 * requestTimeoutMs, requestTimeoutMs };
  // The attempt began no later than now, and no earlier than a whole bound ago (a start it cannot have had).
  const startedAt = Math.min(nowMs, Math.max(nowMs - boundMs, bound.attemptStartMs));
  const deadline = startedAt + Math.floor((boundMs * 2) / 3);
  const floor = Math.min(requestTimeoutMs, Math.floor(boundMs / 6));
  return { deadline, requestTimeoutMs: Math.max(1, floor, Math.min(requestTimeoutMs, deadline - nowMs)) };
}
