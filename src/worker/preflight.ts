// The worker's preflight: ProbeBackend at boot and then periodically; its result is what step 1
// of every Start reads. One probe per namespace runs at a time, however many workers there are.
import type { Client } from '@temporalio/client';
import type { GateStore } from '../activities/settings-activities.js';
import type { BackendGates } from '../model/results.js';

export const probeWorkflowId = (namespace: string) => `probe/${namespace}`;

export async function runPreflight(client: Client, taskQueue: string, gates: GateStore): Promise<BackendGates> {
  const result = await client.workflow.execute('ProbeBackend', {
    taskQueue,
    workflowId: probeWorkflowId(gates.config.namespace),
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    staticSummary: `Preflight probe of namespace ${gates.config.namespace}`,
    args: [],
  });
  const proven = result as BackendGates;
  gates.update(proven);
  return proven;
}

/** Runs the preflight every interval until the signal aborts; a failed run keeps the last result. */
export async function preflightLoop(
  client: Client,
  taskQueue: string,
  gates: GateStore,
  intervalMs: number,
  signal: AbortSignal,
  log: (message: string, fields?: Record<string, unknown>) => void,
): Promise<void> {
  while (!signal.aborted) {
    try {
      // A probe in flight when the worker stops would never finish (no worker runs it), so
      // shutdown must not wait for it.
      const result = await Promise.race([runPreflight(client, taskQueue, gates), aborted(signal)]);
      if (result) log('preflight finished', { reach: result.reach, write: result.write, start: result.start, reasons: result.reasons });
    } catch (error) {
      log('preflight failed', { error: (error as Error).message });
    }
    await sleepUnlessAborted(intervalMs, signal);
  }
}

/**
 * Waits `ms`, or less if the signal aborts. An already-aborted signal never fires 'abort' again, so
 * it must end the wait at once: a worker stopped during a preflight would otherwise wait out the
 * whole interval before exiting, and Kubernetes or Compose would kill it instead of letting it drain.
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    // The listener goes with the timer: a loop sleeps here every second on one long-lived signal.
    const onAbort = () => (clearTimeout(timer), resolve());
    const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves (with nothing) once the signal aborts. */
function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
}
