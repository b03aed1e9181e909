// The Kubernetes calls of Open, Hold, Release and Stop (docs/contract.md §9): read the TrainJob and
// its Workload, make one planned write, delete by UID. What to write is decided by the workflow
// from what was read (src/core/operations/plans.ts); these only carry it out and say what answered.
import { Context } from '@temporalio/activity';
import type { TrainJobRef } from '../model/operations.js';
import type { PlannedWrite } from '../core/objects/planned-write.js';
import { isStaleWrite, sendPlannedWrite } from '../kube/planned-write.js';
import { callsFor, sleep, type ActivityEnv } from './context.js';
import { describeRefusal } from '../kube/call.js';
import { TRAINJOBS } from '../kube/objects.js';
import { readTrainJob, refused, type ObserveConfig, type ObservedObjects } from '../kube/read-trainjob.js';
import type { WorkerClusterRead } from '../core/operations/observed.js';
import { MultiKueueClusterReads, withWorkerCluster } from './worker-cluster-reads.js';

export type WriteAnswer =
  | { applied: true }
  /** The object changed since it was read, or is gone: read again and plan again. */
  | { applied: false; why: string };

/**
 * How long a write that found its object changed waits before it answers, so that the workflow's
 * next read comes after the burst of changes that made it stale (after a Hold, Kueue's own
 * controller keeps updating the Workload for a while: docs/reliability.md). The pause doubles with
 * each stale write in a row, as client-go's RetryOnConflict backs off: 0.5, 1, 2, then 4 s, about
 * 31 s over ten writes (change-trainjob.ts's MAX_STALE_WRITES), and never more than half the
 * activity's start-to-close bound.
 */
export const STALE_WRITE_PAUSE_MS = 500;
export const STALE_WRITE_MAX_PAUSE_MS = 4_000;

/** The pause after a stale write that follows `staleInARow` earlier ones, within half of `activityMs`. */
export const staleWritePauseMs = (staleInARow: number, activityMs: number) =>
  Math.min(STALE_WRITE_PAUSE_MS * 2 ** staleInARow, STALE_WRITE_MAX_PAUSE_MS, Math.floor(activityMs / 2));

export function operationActivities(env: ActivityEnv, reads = new MultiKueueClusterReads(env.kube, env.requestTimeoutMs)) {
  return {
    /**
     * Reads the TrainJob of the ref's name and, in Kueue mode, its Workload (src/kube/read-trainjob.ts);
     * with MultiKueue, while the job runs on a worker cluster, that cluster's MultiKueueCluster too (the
     * Watch's shared read), so that Open's, Hold's and Release's state says, as a Watch's does, when Kueue
     * has lost it (docs/multikueue.md). Only the state's reasons change: the plans decide from the phase.
     * A history recorded before replays its recorded result, which has no such field.
     */
    async observeTrainJob(input: { config: ObserveConfig; ref: TrainJobRef }): Promise<ObservedObjects & { workerCluster?: WorkerClusterRead }> {
      const objects = await readTrainJob(callsFor(env), input.config, input.ref);
      const { workerCluster } = await withWorkerCluster({ ...objects, config: input.config }, reads);
      return workerCluster === undefined ? objects : { ...objects, workerCluster };
    },

    /**
     * Makes one planned write (a JSON patch that tests the object's UID and resourceVersion). A
     * patch that no longer applies is answered `applied: false`, for the workflow to read again;
     * any other refusal is ErrReadOnly (RBAC's 403) or ErrRejected (classifyRefusal).
     */
    async applyWrite(input: { write: PlannedWrite; workloadVersion: string; ref: TrainJobRef; staleInARow?: number }): Promise<WriteAnswer> {
      const { write, workloadVersion, ref } = input;
      const answer = await sendPlannedWrite(callsFor(env), write, workloadVersion);
      if (answer.answered === 'ok') return { applied: true };
      if (isStaleWrite(answer)) {
        await sleep(staleWritePauseMs(input.staleInARow ?? 0, Context.current().info.startToCloseTimeoutMs));
        return { applied: false, why: `${write.summary}: ${describeRefusal(answer)}` };
      }
      throw refused(ref, write.summary, answer);
    },

    /**
     * Stop's delete: the TrainJob of this UID (a precondition), Background propagation, so the
     * runtime copy and the Workload, owned by it, and the JobSet, Jobs and pods below go with it.
     * Gone already, or another UID under the name, is `deleted: false`.
     */
    async deleteTrainJob(input: { ref: TrainJobRef }): Promise<{ deleted: boolean }> {
      const { ref } = input;
      const answer = await callsFor(env).deleteByUid(TRAINJOBS, ref.namespace, ref.name, ref.uid);
      if (answer.answered === 'ok') return { deleted: true };
      if (answer.status === 404 || answer.status === 409) return { deleted: false };
      throw refused(ref, `deleting TrainJob ${ref.namespace}/${ref.name}`, answer);
    },
  };
}
