// The worker's readiness and liveness (GET /readyz, GET /livez; docs/observability.md), decided from
// what the worker observed: a pure function, so that every combination is tested without servers.
//
// Ready means "this pod can work" (docs/contract.md §10): its Temporal worker runs, both its pollers
// poll, and Temporal answered it just now over the worker's own connection. The backend (the
// Kubernetes API, Trainer, Kueue, the probe runtime: the preflight's gates, docs/contract.md §8) is
// reported beside it and never makes the pod unready: an outage of the backend is shared by every
// replica, so it would make them all unready at once and stall a rollout (`helm upgrade --wait`)
// that replacing pods cannot cure; while a gate is unproven each Start is refused at step 1 with a
// typed failure anyway. A draining worker (after SIGTERM its run state is no longer RUNNING) is
// unready. Alive means only that the process answers and its Temporal worker has not failed: a
// restart cures neither an unreachable Temporal nor an unproven gate.
import type { BackendGates } from '../model/results.js';

/** The Temporal SDK's run state of a worker (`Worker.getState()`), as a string. */
export type WorkerRunState = 'INITIALIZED' | 'RUNNING' | 'STOPPED' | 'STOPPING' | 'DRAINING' | 'DRAINED' | 'FAILED';
/** The SDK's state of one poller (`Worker.getStatus()`): polling until the worker stops or fails. */
export type PollerRunState = 'POLLING' | 'SHUTDOWN' | 'FAILED';

export interface HealthObservation {
  worker: {
    runState: WorkerRunState;
    workflowPollerState: PollerRunState;
    activityPollerState: PollerRunState;
  };
  /** The last check of Temporal over the worker's connection: answered, or the error it ended with. */
  temporal: { answered: true } | { answered: false; error: string };
  /** The latest preflight's gates; undefined before the first preflight has ended. */
  gates: BackendGates | undefined;
  /** Milliseconds since the worker started (the health server's start). */
  sinceStartMs: number;
  /** Why the task queue is shared with workers of another namespace (worker/queue-sharing.ts), if it is. */
  sharedQueue?: string;
}

export interface Health {
  ok: boolean;
  /** Why it is not ok, one line per condition not met; empty when ok. */
  reasons: string[];
}

/** Readiness, and the backend's health reported beside it (not part of `ok`). */
export interface Readiness extends Health {
  backend: Health;
}

const health = (reasons: string[]): Health => ({ ok: reasons.length === 0, reasons });

function workerReasons(worker: HealthObservation['worker']): string[] {
  const reasons: string[] = [];
  if (worker.runState !== 'RUNNING') reasons.push(`worker: the Temporal worker is ${worker.runState}, not RUNNING`);
  if (worker.workflowPollerState !== 'POLLING') reasons.push(`worker: the workflow task poller is ${worker.workflowPollerState}`);
  if (worker.activityPollerState !== 'POLLING') reasons.push(`worker: the activity task poller is ${worker.activityPollerState}`);
  return reasons;
}

function gateReasons(gates: BackendGates | undefined, sinceStartMs: number): string[] {
  if (!gates) return [`gates: unknown, the first preflight has not ended (${Math.round(sinceStartMs / 1000)}s after start)`];
  const unproven = (['reach', 'write', 'start'] as const).filter((gate) => !gates[gate]);
  if (unproven.length === 0) return [];
  const unknown = { reach: false, write: gates.writeUnknown === true, start: gates.startUnknown === true };
  const named = unproven.map((gate) => (unknown[gate] ? `${gate} (unknown)` : gate));
  // The preflight's own reasons say why (one per unproven gate, prefixed with its name).
  return [`gates: ${named.join(', ')} not proven at ${gates.checkedAt}`, ...gates.reasons.map((reason) => `gates: ${reason}`)];
}

/**
 * The backend as the latest preflight saw it, and the task queue as its pollers show it: healthy
 * when every gate is proven and no worker of another namespace polls the queue (docs/contract.md §10).
 */
export function backendHealth(observed: Pick<HealthObservation, 'gates' | 'sinceStartMs' | 'sharedQueue'>): Health {
  return health([...gateReasons(observed.gates, observed.sinceStartMs), ...(observed.sharedQueue ? [`release: ${observed.sharedQueue}`] : [])]);
}

export function readiness(observed: HealthObservation): Readiness {
  return {
    ...health([
      ...workerReasons(observed.worker),
      ...(observed.temporal.answered ? [] : [`temporal: no answer over the worker's connection: ${observed.temporal.error}`]),
    ]),
    backend: backendHealth(observed),
  };
}

/**
 * Alive unless the Temporal worker or one of its pollers failed. Stopping and draining are alive:
 * a worker finishing its tasks after SIGTERM must not be killed for it.
 */
export function liveness(observed: Pick<HealthObservation, 'worker'>): Health {
  const { worker } = observed;
  return health(
    [
      worker.runState === 'FAILED' ? 'worker: the Temporal worker FAILED' : '',
      worker.workflowPollerState === 'FAILED' ? 'worker: the workflow task poller FAILED' : '',
      worker.activityPollerState === 'FAILED' ? 'worker: the activity task poller FAILED' : '',
    ].filter(Boolean),
  );
}

/** What the health server asks: the worker's readiness (which may call Temporal) and its liveness. */
export interface HealthSource {
  readiness(): Promise<Readiness>;
  liveness(): Health;
}
