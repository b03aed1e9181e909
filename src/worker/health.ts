// What /readyz and /livez decide from (src/core/health.ts): the Temporal worker's own state and its
// pollers' (Worker.getStatus()) and one call to Temporal over the worker's connection decide; the
// preflight's latest gates are reported beside them as the backend's health.
//
// Why a call of our own: the SDK's poller state stays POLLING while Temporal is away (Core retries
// failed polls without telling the worker), and so does the run state. GetSystemInfo goes over the
// same NativeConnection the pollers use, is cheap for the server, and needs no namespace rights.
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { SettingsSource } from '../activities/settings-activities.js';
import type { QueueSharingCheck } from './queue-sharing.js';
import { liveness, readiness, type HealthObservation, type HealthSource } from '../core/health.js';

/** How long one check of Temporal may take: under a Kubernetes probe's timeout (the manifests give 5 s). */
export const TEMPORAL_CHECK_TIMEOUT_MS = 2_000;
/** Probes this close together share one check of Temporal (two probes, or a probe and a person). */
export const TEMPORAL_CHECK_REUSE_MS = 1_000;


export interface HealthSourceOptions {
  worker: Pick<Worker, 'getStatus'>;
  connection: Pick<NativeConnection, 'workflowService' | 'withDeadline'>;
  gates: Pick<SettingsSource, 'latestGates'>;
  /** The task queue's pollers, as the worker last read them (release isolation, docs/contract.md §10). */
  queueSharing?: Pick<QueueSharingCheck, 'reason'>;
  checkTimeoutMs?: number;
  now?: () => number;
}

export function createHealthSource(options: HealthSourceOptions): HealthSource {
  const now = options.now ?? Date.now;
  const timeoutMs = options.checkTimeoutMs ?? TEMPORAL_CHECK_TIMEOUT_MS;
  const startedAt = now();
  let last: { at: number; result: Promise<HealthObservation['temporal']> } | undefined;

  const checkTemporal = (): Promise<HealthObservation['temporal']> => {
    const at = now();
    if (last && at - last.at < TEMPORAL_CHECK_REUSE_MS) return last.result;
    let timer: NodeJS.Timeout | undefined;
    // The deadline bounds each gRPC attempt; the timer bounds Core's retries of an unavailable server.
    const call = options.connection.withDeadline(at + timeoutMs, () => options.connection.workflowService.getSystemInfo({}));
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const result = Promise.race([call, late]).then(
      (): HealthObservation['temporal'] => ({ answered: true }),
      (error: unknown): HealthObservation['temporal'] => ({ answered: false, error: (error as Error).message.split('\n')[0] ?? String(error) }),
    );
    void result.finally(() => clearTimeout(timer));
    // A call that loses the race still settles later; nothing waits for it.
    call.catch(() => undefined);
    last = { at, result };
    return result;
  };

  const workerState = (): HealthObservation['worker'] => {
    const status = options.worker.getStatus();
    return {
      runState: status.runState,
      workflowPollerState: status.workflowPollerState,
      activityPollerState: status.activityPollerState,
    };
  };

  return {
    async readiness() {
      const temporal = await checkTemporal();
      const sharedQueue = options.queueSharing?.reason();
      return readiness({ worker: workerState(), temporal, gates: options.gates.latestGates(), sinceStartMs: now() - startedAt, ...(sharedQueue ? { sharedQueue } : {}) });
    },
    liveness: () => liveness({ worker: workerState() }),
  };
}
