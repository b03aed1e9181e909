// The calls of a Watch that may go unanswered or be refused for a while, and how a Watch reports
// them: it waits both out (docs/contract.md §9a, §9c), so they are thrown as WaitedOut and caught
// where the Watch decides to wait (watch-activities.ts, watch-check.ts, failed-outcome.ts).
import { DispatchError } from '../model/errors.js';
import type { TrainJobRef } from '../model/operations.js';
import type { WATCH_CALLS } from '../observability/metrics.js';
import { refused, type KubeRefusal } from '../kube/read-trainjob.js';

/** The calls of a Watch that may go unanswered, as the metric labels them. */
export type WatchCall = (typeof WATCH_CALLS)[number];

/**
 * What a Watch reports of a call the API left unanswered, or answered with a refusal it waits out
 * (`status`): Prometheus counters in the worker.
 */
export type CountUnanswered = (call: WatchCall, status?: number) => void;

/**
 * A call the API did not answer (kubeCall's retryable failure, or the batched lists' plain error), or
 * answered with a definite refusal that may pass (`status`): a restarted API server answers 403
 * until its authorizer has synced, and 5xx-like Statuses while it settles. A Watch ends only with an
 * Outcome (docs/contract.md §9c), so it waits both out alike, saying why and since when.
 */
export class WaitedOut extends Error {
  constructor(
    readonly call: WatchCall,
    cause: unknown,
    readonly status?: number,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export const unansweredAs =
  (call: WatchCall) =>
  (error: unknown): never => {
    throw error instanceof DispatchError ? error : new WaitedOut(call, error);
  };

/** A definite refusal of a Watch's call, to be waited out (WaitedOut with its status), naming what was asked. */
export const refusedCall = (ref: TrainJobRef, call: WatchCall, what: string, answer: KubeRefusal) =>
  new WaitedOut(call, `${refused(ref, what, answer).reasons.join('; ')} (waited out: the Watch ends only with an outcome)`, answer.status);
