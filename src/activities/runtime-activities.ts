// Steps 2 and 5 of Start: read the source runtime; create (or, on a retried Start, reuse) its copy.
import { KueueConfigSchema, type Config, type Mode } from '../model/config.js';
import { DispatchError } from '../model/errors.js';
import type { TrainJobRef } from '../model/operations.js';
import type { TrainerRuntime, TrainJob } from '../model/kube.js';
import { conflictRule } from '../core/start/create-conflict.js';
import { earlierOwnerOf, earlierStartReasons, type StartGateConfig } from '../core/start/earlier-start.js';
import type { RuntimeName } from '../core/objects/runtime-name.js';
import { callsFor, createWaits, type ActivityEnv } from './context.js';
import { copyToWorkerClusters } from './worker-copies.js';
import { createOrAdopt } from '../kube/create-or-adopt.js';
import { fetchRuntime } from '../kube/read-runtime.js';
import { TRAINING_RUNTIMES, TRAINJOBS, type ObjectCalls } from '../kube/objects.js';

export interface CreatedObject {
  name: string;
  uid: string;
}

/** Step 5's result: the copy, and, when it was adopted from an earlier finished run, that run's TrainJob. */
export interface CreatedCopy extends CreatedObject {
  reused: boolean;
  /**
   * The UID of the TrainJob an earlier run of this attempt made and the caller has not taken over
   * (src/core/start/earlier-start.ts): steps 6-9 adopt it, and the undo never deletes it.
   */
  earlierTrainJobUid?: string;
}

export function runtimeActivities(env: ActivityEnv) {
  return {
    async readRuntime(input: { namespace: string; runtime: RuntimeName }): Promise<TrainerRuntime> {
      return fetchRuntime(callsFor(env), input.namespace, input.runtime);
    },

    /**
     * Step 5. Creates the copy. A copy of the name left by an earlier call of this Start is reused
     * when it has no owner and the same spec; one being deleted is waited for, then created afresh.
     * Given the TrainJob this Start writes, a copy owned by the TrainJob an earlier, finished run of
     * this attempt made is reused too (src/core/start/earlier-start.ts); steps 6-9 then adopt that TrainJob.
     * `kueue` names dispatch's gate, to tell an opened TrainJob (absent from inputs recorded before
     * it: the default gate).
     */
    async createRuntimeCopy(input: { copy: TrainerRuntime; trainJob?: TrainJob; mode?: Mode; kueue?: Config['kueue'] }): Promise<CreatedCopy> {
      const startedAt = Date.now();
      const made = await createManagerCopy(input);
      // MultiKueue: the same copy on every worker cluster (docs/multikueue.md); nothing without it.
      await copyToWorkerClusters(env, input, made, startedAt);
      return made;
    },
  };

  /** Step 5 on the manager cluster (the only cluster without MultiKueue). */
  async function createManagerCopy(input: { copy: TrainerRuntime; trainJob?: TrainJob; mode?: Mode; kueue?: Config['kueue'] }): Promise<CreatedCopy> {
    const name = input.copy.metadata?.name ?? '';
    const calls = callsFor(env);
    const outcome = await createOrAdopt(calls, TRAINING_RUNTIMES, input.copy, conflictRule({ adopt: 'unowned-same-spec', wanted: input.copy }), createWaits());
    if (outcome.do !== 'refuse') return { name, uid: outcome.uid, reused: outcome.do === 'adopt' };
    if (outcome.type === 'ErrRejected' && outcome.existing && input.trainJob && input.mode) {
      const gateConfig = { mode: input.mode, kueue: input.kueue ?? KueueConfigSchema.parse({}) };
      const earlier = await earlierStart(calls, outcome.existing as TrainerRuntime, input.copy, input.trainJob, gateConfig);
      if (earlier.uid !== undefined) return { name, uid: earlier.uid, reused: true, earlierTrainJobUid: earlier.trainJobUid };
      // A TrainJob of this attempt's in the way, left as it is: the refusal names it.
      if (earlier.ref) throw new DispatchError(outcome.type, [...outcome.reasons, ...earlier.reasons], 5, earlier.ref);
      throw new DispatchError(outcome.type, [...outcome.reasons, ...earlier.reasons], 5);
    }
    throw new DispatchError(outcome.type, outcome.reasons, 5);
  }
}

/**
 * Whether the copy in the way (`existing`, as the read after the create's 409 saw it) is this
 * attempt's, owned by the TrainJob of its earlier finished run: its UID when it is; otherwise what
 * was found wrong with that owner (none when the copy is no candidate). A refused read of the owner
 * adopts nothing (the seed's refusal stands); an unanswered one throws, and the activity is retried
 * as any call.
 */
async function earlierStart(
  calls: ObjectCalls,
  existing: TrainerRuntime,
  copy: TrainerRuntime,
  trainJob: TrainJob,
  config: StartGateConfig,
): Promise<{ uid?: string; trainJobUid?: string; ref?: TrainJobRef; reasons: string[] }> {
  const owner = earlierOwnerOf(existing, copy);
  if (owner === undefined) return { reasons: [] };
  const namespace = copy.metadata?.namespace ?? '';
  const readJob = await calls.get(TRAINJOBS, namespace, owner.name);
  if (readJob.answered === 'definite' && readJob.status !== 404) return { reasons: [] };
  const found = readJob.answered === 'ok' ? readJob.value : undefined;
  const reasons = earlierStartReasons(owner, found, trainJob, config);
  if (reasons.length === 0) return { uid: existing.metadata?.uid ?? '', trainJobUid: owner.uid, reasons };
  const ref = found?.metadata?.uid === owner.uid ? { namespace, name: owner.name, uid: owner.uid } : undefined;
  return ref ? { ref, reasons } : { reasons };
}
