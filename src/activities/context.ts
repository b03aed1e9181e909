// Per-activity plumbing: the calls object bound to this activity's cancellation, and pauses that
// heartbeat, so that a long wait is visible and a cancelled Start stops waiting.
import { Context } from '@temporalio/activity';
import type { KubeClients } from './kube-clients.js';
import type { CallContext } from './kube-call.js';
import { ObjectCalls } from './objects.js';

export interface ActivityEnv {
  kube: KubeClients;
  /** How long one HTTP request may stay unanswered before it is retried. */
  requestTimeoutMs: number;
}

/** This activity's call bounds: its cancellation, and the per-request timeout. */
export function callContext(env: ActivityEnv): CallContext {
  return { signal: Context.current().cancellationSignal, requestTimeoutMs: env.requestTimeoutMs };
}

export function callsFor(env: ActivityEnv): ObjectCalls {
  return new ObjectCalls(env.kube, callContext(env));
}

/** Sleeps, heartbeating first, and throws if the activity is cancelled meanwhile. */
export async function pause(ms: number, details?: unknown): Promise<void> {
  Context.current().heartbeat(details);
  await Context.current().sleep(ms);
}

/** How often a wait for an object being deleted checks again. */
export const DELETION_POLL_MS = 500;
