// Steps 2 to 9 of Start, shared by StartTrainJob and the preflight probe (which is "a Start like
// any other, with a spec of its own"). Everything that decides runs here from the pure core; the
// activities only talk to the API server. Failure at steps 7-9, or cancellation once something may
// exist, runs the compensation: stop what this attempt created.
import { CancellationScope, isCancellation, patched } from '@temporalio/workflow';
import type { Config } from '../model/config.js';
import { Annotations } from '../model/constants.js';
import { DispatchError, type ObjectRef } from '../model/errors.js';
import type { StartResult } from '../model/results.js';
import { compareReadBack } from '../core/readback.js';
import { planStart } from '../core/plan.js';
import { allowListRefusal } from '../core/refusals.js';
import { runtimeKey, type ValidRequest } from '../core/validated.js';
import { activitiesFor } from './activity-proxies.js';
import { classify } from './failures.js';
import type { ProgressReporter } from './progress.js';

/**
 * Patch (docs/versioning.md): dispatch's runtime patch gives container node a read-only downward-API
 * volume (dispatch-pod at /etc/dispatch/pod) instead of env, which Trainer v2.3.0's TrainJob
 * webhook refuses (CONTRACT §4, amended 2026-11-30). Starts recorded before it replay unpatched
 * and render the first patch, so that their read-back compares against what they wrote
 * (test/histories/01-baseline, 02-coalesce-progress-upserts, 03-local-start-steps).
 */
export const RUNTIME_PATCH_POD_VOLUME = 'runtime-patch-pod-volume';

export interface RunOptions {
  probe?: boolean;
  /** The Kubernetes calls run as local activities (LOCAL_STEPS_PATCH). */
  local?: boolean;
}

/** What exists so far, for the compensation: the stack of the saga, here just a few facts. */
interface Created {
  /** Step 5 was entered: a cancellation from here on may have left a copy behind. */
  copying: boolean;
  /** A failure from here on must undo what this attempt created. */
  compensable: boolean;
  /** Set from step 7 on: the copy is owned by the TrainJob, so the garbage collector takes it. */
  ownerSet: boolean;
  copyUid?: string;
  ref?: ObjectRef;
}

export async function runStart(valid: ValidRequest, config: Config, progress: ProgressReporter, options: RunOptions = {}): Promise<StartResult> {
  const acts = activitiesFor(config, options.local ?? false);
  const namespace = config.namespace;
  const source = runtimeKey(valid.runtime);

  // Step 2: read the runtime named by kubeflow/RuntimeRef, if the allow-list lets us.
  progress.enter(2, `runtime ${source}`);
  const notAllowed = allowListRefusal(valid.runtime, config);
  if (notAllowed) throw notAllowed;
  const runtime = await acts
    .readRuntime({ namespace, runtime: valid.runtime })
    .catch((error: unknown) => Promise.reject(classify(error, 2, 'ErrUnreachable', `reading runtime ${source}`)));

  // Steps 3 and 4: the runtime rules (seed 001, every broken rule at once), then render. Nothing
  // has been created yet.
  progress.enter(3, `the rules of runtime ${source}, then rendering`);
  const { runtimeCopy, trainJob, weakened } = planStart(valid, runtime, config, {
    probe: options.probe ?? false,
    legacyNodeEnv: !patched(RUNTIME_PATCH_POD_VOLUME),
  });
  const name = trainJob.metadata.name!;
  const token = trainJob.metadata.annotations![Annotations.attemptToken]!;

  const created: Created = { copying: false, compensable: false, ownerSet: false };
  try {
    // Step 5: the runtime copy.
    progress.enter(5, `runtime copy ${namespace}/${name}`);
    created.copying = true;
    const copy = await acts
      .createRuntimeCopy({ copy: runtimeCopy })
      .catch((error: unknown) => Promise.reject(classify(error, 5, 'ErrUnreachable', `creating runtime copy ${namespace}/${name}`)));
    created.compensable = true;
    created.copyUid = copy.uid;

    // Step 6: the TrainJob. A definite refusal was already cleaned up by the activity.
    progress.enter(6, `TrainJob ${namespace}/${name}`);
    const job = await acts.createTrainJob({ trainJob, copy }).catch((error: unknown) => {
      const cause = classify(error, 6, 'ErrOutcomeUnknown', `creating TrainJob ${namespace}/${name}`);
      created.compensable = false; // kept for a retried Start of this attempt, or already deleted
      // Only an unanswered create may have made our TrainJob: name it (its UID is not known). A
      // definite refusal names no ref: the TrainJob in the way, if any, is not this attempt's.
      const ours = cause.type === 'ErrOutcomeUnknown' ? new DispatchError(cause.type, cause.reasons, 6, { namespace, name, uid: '' }) : cause;
      return Promise.reject(ours);
    });
    const ref: ObjectRef = { namespace, name, uid: job.uid };
    created.ref = ref;
    progress.created(job.uid);

    // Step 7: owner reference from the copy to the TrainJob.
    progress.enter(7, `owner of runtime copy ${namespace}/${name}`);
    await acts
      .setOwner({ namespace, copy, trainJob: { name, uid: job.uid } })
      .catch((error: unknown) => Promise.reject(classify(error, 7, 'ErrRejected', 'setting the owner reference', ref)));
    created.ownerSet = true;

    // Step 8: read back and compare what we wrote.
    progress.enter(8, `read-back of TrainJob ${namespace}/${name}`);
    const read = await acts
      .readBack({ namespace, name })
      .catch((error: unknown) => Promise.reject(classify(error, 8, 'ErrRejected', 'reading the TrainJob back', ref)));
    const differences = compareReadBack(trainJob, read, config.mode);
    if (read.metadata.uid !== job.uid) differences.unshift(`metadata.uid: wrote ${job.uid}, read ${read.metadata.uid ?? '(none)'}`);
    if (differences.length > 0) throw new DispatchError('ErrRejected', differences, 8, ref);

    // Step 9: in Kueue mode, the Workload with dispatch's gate and admission check.
    if (config.mode === 'kueue') {
      progress.enter(9, `the Workload of TrainJob ${namespace}/${name}`);
      await acts
        .waitForWorkload({ config, ref })
        .catch((error: unknown) => Promise.reject(classify(error, 9, 'ErrRejected', 'waiting for the Workload', ref)));
    }

    return {
      ref: `${namespace}/${name}`,
      uid: job.uid,
      namespace,
      name,
      runtimeCopy: copy.name,
      mode: config.mode,
      ...(weakened ? { weakened } : {}),
    };
  } catch (error) {
    if (!created.compensable && !(created.copying && isCancellation(error))) throw error;
    await compensate(acts, { namespace, name, token, created, cause: error });
    throw error instanceof DispatchError && !error.ref && created.ref ? new DispatchError(error.type, error.reasons, error.step, created.ref) : error;
  }
}

/**
 * Stops what this attempt created, even when the Start itself was cancelled. When the stop fails
 * too, the outcome is unknown: the TrainJob may still exist.
 */
async function compensate(
  acts: ReturnType<typeof activitiesFor>,
  input: { namespace: string; name: string; token: string; created: Created; cause: unknown },
): Promise<void> {
  const { namespace, name, token, created, cause } = input;
  const step = cause instanceof DispatchError ? cause.step : 0;
  const { ownerSet, copyUid, ref } = created;
  try {
    await CancellationScope.nonCancellable(() =>
      acts.stopTrainJob({
        namespace,
        name,
        token,
        ownerSet,
        step,
        ...(copyUid ? { copyUid } : {}),
        ...(ref ? { ref, trainJobUid: ref.uid } : {}),
      }),
    );
  } catch (stopError) {
    const stop = classify(stopError, step, 'ErrOutcomeUnknown', `stopping TrainJob ${namespace}/${name}`, created.ref);
    const first = cause instanceof DispatchError ? cause.reasons : isCancellation(cause) ? ['the Start was cancelled'] : [String(cause)];
    throw new DispatchError('ErrOutcomeUnknown', [...first, ...stop.reasons.map((r) => `the stop failed too: ${r}`)], step, created.ref ?? { namespace, name, uid: '' });
  }
}
