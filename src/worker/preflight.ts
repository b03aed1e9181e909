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
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, intervalMs);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}

/** Resolves (with nothing) once the signal aborts. */
function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
}
