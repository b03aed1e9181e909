// The one place where what an activity throws becomes the failure Temporal records (docs/errors.md):
// a DispatchError (a definite refusal) becomes its non-retryable ApplicationFailure, which the
// workflows read (type, details [{reasons, step, ref?}]); a call the Kubernetes API left unanswered
// (src/kube's KubeUnanswered) becomes the retryable `KubeUnanswered` failure, which Temporal retries
// until CallBound; anything else is a bug and is thrown as it is. The type strings are part of the
// recorded histories: they never change.
import { ApplicationFailure } from '@temporalio/common';
import { DispatchError } from '../model/errors.js';
import { toApplicationFailure } from '../model/error-failures.js';
import { KubeUnanswered } from '../kube/call.js';

/** The failure type of an unanswered call; retried by Temporal, never seen by a caller. */
export const UNANSWERED = 'KubeUnanswered';

/** What an activity throws, as the failure Temporal records. */
export function toActivityFailure(error: unknown): unknown {
  if (error instanceof DispatchError) return toApplicationFailure(error);
  if (error instanceof KubeUnanswered) return ApplicationFailure.retryable(error.message, UNANSWERED);
  return error;
}

type ActivityFn = (...args: never[]) => Promise<unknown>;

/** The same activities, each wrapped by `wrap`. */
export function eachActivity<T extends Record<string, ActivityFn>>(activities: T, wrap: (fn: ActivityFn) => ActivityFn): T {
  return Object.fromEntries(Object.entries(activities).map(([name, fn]) => [name, wrap(fn)])) as T;
}

/** The same activities, what they throw turned into its failure (toActivityFailure). */
export const typedFailures = <T extends Record<string, ActivityFn>>(activities: T): T =>
  eachActivity(activities, (fn) => async (...args) => {
    try {
      return await fn(...args);
    } catch (error) {
      throw toActivityFailure(error);
    }
  });
