// Start's undo (docs/contract.md §7): deletes what this attempt created, as the
// stop plan names it (src/core/start/undo-plan.ts). Not the Stop operation (StopTrainJob, which deletes a
// started TrainJob on request: operation-activities.ts). It is registered under the activity name
// `stopTrainJob`, which every recorded history names: that name never changes.
import type { Config, Mode } from '../model/config.js';
import { KueueConfigSchema } from '../model/config.js';
import { DispatchError } from '../model/errors.js';
import type { TrainJobRef } from '../model/operations.js';
import type { KubeObject, TrainJob } from '../model/kube.js';
import { decideCopyUndo, decideTrainJobUndo, undoTargets, type UndoObject } from '../core/start/undo-plan.js';
import { objectAddress, TRAINING_RUNTIMES, TRAINJOBS, type NamespacedKind } from '../kube/objects.js';
import { deleteAsDecided } from '../kube/delete-decided.js';
import { callsFor, type ActivityEnv } from './context.js';
import { undoOnWorkerClusters } from './worker-copies.js';

const KINDS: Record<UndoObject, NamespacedKind> = { trainJob: TRAINJOBS, copy: TRAINING_RUNTIMES };

export interface UndoStartInput {
  namespace: string;
  /** The TrainJob's name, which is also the runtime copy's. */
  name: string;
  /** This attempt's token: an object looked up by name is deleted only if it carries it. */
  token: string;
  /** UIDs the workflow learnt from steps 5 and 6; an unknown one is looked up by name. */
  trainJobUid?: string;
  copyUid?: string;
  /** Whether step 7 set the copy's owner, so that the garbage collector deletes the copy. */
  ownerSet: boolean;
  /** The step whose failure is being undone, and the TrainJob's ref, for the failure if the undo fails. */
  step: number;
  ref?: TrainJobRef;
  /** The TrainJob as Start wrote it: a TrainJob looked up by name is deleted only while it still reads back so. */
  trainJob?: TrainJob;
  /** The mode and dispatch's Kueue gate, to tell an opened TrainJob (absent from inputs recorded before them: plain, the default gate). */
  mode?: Mode;
  kueue?: Config['kueue'];
  /** Step 5 adopted the TrainJob from an earlier run of this attempt: it is left, never deleted. */
  adoptedEarlier?: boolean;
}

/** A TrainJob (and its copy) the undo left as it is, and why: the Start's failure names it. */
export interface LeftObject {
  ref: TrainJobRef;
  reason: string;
}

export interface UndoStartResult {
  deleted: string[];
  /** Present when the undo left this attempt's TrainJob to the caller (docs/contract.md §7). */
  left?: LeftObject[];
}

export { STOP_READS } from '../kube/delete-decided.js';

export function undoStartActivities(env: ActivityEnv) {
    /**
     * Compensation (docs/contract.md §7): stops what the stop plan names (src/core/start/undo-plan.ts):
     * this attempt's TrainJob, and the runtime copy too when its owner reference was never set. Each
     * is read, decided on (decideTrainJobUndo, decideCopyUndo) and deleted with Background
     * propagation and preconditions; a TrainJob the caller took over, or adopted from an earlier
     * run, is left and named in `left`. A definite refusal is ErrOutcomeUnknown: the TrainJob may
     * still exist.
     */
    async function undoStart(input: UndoStartInput): Promise<UndoStartResult> {
      const calls = callsFor(env);
      const { namespace, name, token } = input;
      const config = { mode: input.mode ?? 'plain', kueue: input.kueue ?? KueueConfigSchema.parse({}) } as const;
      const problems: string[] = [];
      const deleted: string[] = [];
      const left: LeftObject[] = [];
      for (const target of undoTargets(input)) {
        const knownUid = target.uid;
        const decide =
          target.object === 'trainJob'
            ? (found: KubeObject | undefined) =>
                decideTrainJobUndo(found, {
                  token,
                  config,
                  adoptedEarlier: input.adoptedEarlier === true,
                  createBegun: input.step >= 6,
                  ...(knownUid ? { knownUid } : {}),
                  ...(input.trainJob ? { wanted: input.trainJob } : {}),
                })
            : (found: KubeObject | undefined) => decideCopyUndo(found, { token, trainJobLeft: left.length > 0, ...(knownUid ? { knownUid } : {}) });
        const outcome = await deleteAsDecided(calls, KINDS[target.object], namespace, name, decide);
        if (outcome.do === 'problem') problems.push(outcome.reason);
        else if (outcome.do === 'delete') deleted.push(objectAddress(KINDS[target.object], namespace, name));
        else if (outcome.do === 'leave') left.push({ ref: { namespace, name, uid: outcome.uid }, reason: outcome.reason });
      }
      if (problems.length === 0) {
        // MultiKueue: this attempt's copies on the worker clusters too (never owned by the manager's
        // TrainJob); not while that TrainJob may still exist (a problem above): it may run on one.
        deleted.push(...(await undoOnWorkerClusters(env, { ...input, trainJobLeft: left.length > 0 })));
      }
      if (problems.length > 0) throw new DispatchError('ErrOutcomeUnknown', problems, input.step, input.ref);
      return left.length > 0 ? { deleted, left } : { deleted };
    }

  // The registered name (recorded in every history of an undone Start).
  return { stopTrainJob: undoStart };
}
