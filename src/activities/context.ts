// Per-activity plumbing: the calls object bound to this activity's cancellation, and pauses that
// heartbeat, so that a long wait is visible and a cancelled Start stops waiting.
import { Context } from '@temporalio/activity';
import type { KubeClients, WorkerClusterClients } from '../kube/clients.js';
import type { RememberedFailures } from '../core/operations/node-failures.js';
import type { CallContext } from '../kube/call.js';
import { ObjectCalls } from '../kube/objects.js';
import type { CreateWaits } from '../kube/create-or-adopt.js';

export interface ActivityEnv {
  kube: KubeClients;
  /** How long one HTTP request may stay unanswered before it is retried. */
  requestTimeoutMs: number;
  /** MultiKueue: the worker clusters' clients, by name (docs/multikueue.md); none without it. */
  workerClusters?: WorkerClusterClients;
  /** MultiKueue: what this worker's watch of the worker clusters' pods remembers of their failures. */
  exitCodes?: RememberedFailures;
}

/** This activity's call bounds: its cancellation, and the per-request timeout. */
export function callContext(env: ActivityEnv): CallContext {
  return { signal: Context.current().cancellationSignal, requestTimeoutMs: env.requestTimeoutMs };
}

export function callsFor(env: ActivityEnv): ObjectCalls {
  return new ObjectCalls(env.kube, callContext(env));
}

/**
 * Context.sleep, without its leak: each Context.sleep hangs a reaction (and its timer) on the
 * activity's `cancelled` promise, which settles only on cancellation, so a wait that sleeps every
 * second for timeouts.workload kept every sleep it made (docs/performance.md). Here the listener is
 * removed when the sleep ends. Throws what Context.sleep throws (CancelledFailure) on cancellation.
 */
export function sleep(ms: number): Promise<void> {
  return sleepOrWake(ms, []);
}

/**
 * Sleeps `ms`, or until one of `wakes` settles, whichever comes first; throws on cancellation as
 * sleep() does. The timer and the abort listener go as soon as it ends: a check loop that a burst
 * of changes wakes again and again would otherwise leave a pending sleep (and a listener on the
 * activity's signal) behind for each wake.
 */
export function sleepOrWake(ms: number, wakes: readonly Promise<unknown>[]): Promise<void> {
  const signal = Context.current().cancellationSignal;
  return new Promise<void>((resolve, reject) => {
    // The worker aborts the signal with the CancelledFailure it then rejects `cancelled` with.
    if (signal.aborted) return reject(signal.reason);
    const end = (settle: () => void) => () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      settle();
    };
    const onAbort = end(() => reject(signal.reason));
    const timer = setTimeout(end(resolve), ms);
    signal.addEventListener('abort', onAbort, { once: true });
    for (const wake of wakes) wake.then(end(resolve), end(resolve));
  });
}

/** Sleeps, heartbeating first, and throws if the activity is cancelled meanwhile. */
export async function pause(ms: number, details?: unknown): Promise<void> {
  Context.current().heartbeat(details);
  await sleep(ms);
}

/** The create loop's waits (src/kube/create-or-adopt.ts) in this activity: its bound, and pause(). */
export function createWaits(): CreateWaits {
  return { boundMs: Context.current().info.startToCloseTimeoutMs, pause };
}

/**
 * Keeps an activity heartbeating while it runs, so that a worker lost mid-call (killed, its host
 * gone) is noticed within the heartbeat timeout the workflow sets, and the call is retried on
 * another worker within CallBound; without it, only the start-to-close timeout, itself CallBound,
 * would notice, and the step would end unanswered with no retry left.
 */
export function keepingAlive<A extends unknown[], R>(activity: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const ctx = Context.current();
    const every = ctx.info.heartbeatTimeoutMs ? Math.max(100, Math.floor(ctx.info.heartbeatTimeoutMs / 3)) : 0;
    if (!every) return activity(...args);
    // No heartbeat at the start: the server's heartbeat timeout already runs from the activity's
    // start, so a call that ends within `every` (nearly all) costs the server no heartbeat write.
    const timer = setInterval(() => ctx.heartbeat(), every);
    try {
      return await activity(...args);
    } finally {
      clearInterval(timer);
    }
  };
}
