// Steps 2 to 9 of Start, shared by StartTrainJob and the preflight probe (which is "a Start like
// any other, with a spec of its own"). Everything that decides runs here from the pure core; the
// activities only talk to the API server. A Start that ends at a step whose row in steps.ts says
// so (a failure at 7-9, or a cancellation once step 5 has begun) runs the undo: stop what
// this attempt created.
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { Config } from '../model/config.js';
import { Annotations } from '../model/constants.js';
import { DispatchError } from '../model/errors.js';
import type { TrainJobRef } from '../model/operations.js';
import type { TrainJob } from '../model/kube.js';
import type { StartResult } from '../model/results.js';
import type { LeftObject } from '../activities/undo-start-activities.js';
import type { CopyFold } from '../activities/folded-start-activities.js';
import { attemptToken, trainJobName } from '../core/start/names.js';
import { compareReadBack } from '../core/start/readback.js';
import { planStart } from '../core/start/plan.js';
import { allowListRefusal } from '../core/start/refusals.js';
import { type ValidRequest } from '../core/start/validated.js';
import { runtimeKey } from '../core/objects/runtime-name.js';
import { activitiesFor, type StartActivities } from './activity-proxies.js';
import { classify } from './failures.js';
import type { ProgressReporter } from './progress.js';
import { copyFoldAnswers, firstAttempt, foldingCalls, ownerFoldAnswers } from './folded-steps.js';
import { StartSteps } from './start-steps.js';
import { mustUndo } from '../core/start/steps.js';

export interface RunOptions {
  probe?: boolean;
}

/** What this attempt has created so far, for the undo: the saga's stack, as a few facts. */
interface Created {
  copyUid?: string;
  /** Set once step 7 succeeded: the copy is owned by the TrainJob, so the garbage collector takes it. */
  ownerSet: boolean;
  ref?: TrainJobRef;
  /** Step 5 adopted the TrainJob of an earlier run of this attempt: the undo leaves it. */
  adoptedEarlier: boolean;
}

export async function runStart(valid: ValidRequest, config: Config, progress: ProgressReporter, options: RunOptions = {}): Promise<StartResult> {
  const acts = activitiesFor(config, progress.taskEnd);
  const namespace = config.namespace;
  const source = runtimeKey(valid.runtime);

  // Step 2: read the runtime named by kubeflow/RuntimeRef, if the allow-list lets us.
  const notAllowed = allowListRefusal(valid.runtime, config);
  if (notAllowed) {
    progress.enter(2, `runtime ${source}`);
    throw notAllowed;
  }
  // Steps 2 and 5 make their first attempt in one local activity (folded-steps.ts), and so do 7 and
  // 8; the steps then read what the fold answered (start-steps.ts).
  const steps = new StartSteps(progress, acts);
  const waitingFor2 = `runtime ${source}`;
  const copyName = `runtime copy ${namespace}/${trainJobName(valid.request.job, valid.request.submission)}`;
  foldingCalls();
  steps.folded(copyFoldAnswers(await foldCopy(acts, progress, { 2: waitingFor2, 5: copyName }, { valid, config, probe: options.probe ?? false })));
  const runtime = await steps.run(2, waitingFor2, (calls) => calls.readRuntime({ namespace, runtime: valid.runtime }));

  // Steps 3 and 4: the runtime rules (every broken rule at once), then render. Nothing has been
  // created yet (a fold's copy is made only from this same plan).
  progress.enter(3, `the rules of runtime ${source}, then rendering`);
  const { runtimeCopy, trainJob, weakened } = planStart(valid, runtime, config, { probe: options.probe ?? false });
  const name = trainJob.metadata.name!;
  const token = trainJob.metadata.annotations![Annotations.attemptToken]!;

  const created: Created = { ownerSet: false, adoptedEarlier: false };
  try {
    // Step 5. The TrainJob and mode let a retried Start recognise a copy owned by its attempt's own
    // TrainJob, made by an earlier run whose answer the caller lost (src/core/start/earlier-start.ts).
    const copyInput = { copy: runtimeCopy, trainJob, mode: config.mode, kueue: config.kueue };
    const copy = await steps.run(5, `runtime copy ${namespace}/${name}`, (calls) => calls.createRuntimeCopy(copyInput));
    created.copyUid = copy.uid;
    if (copy.earlierTrainJobUid) {
      created.adoptedEarlier = true;
      created.ref = { namespace, name, uid: copy.earlierTrainJobUid };
    }

    // Step 6. A definite refusal was already cleaned up by the activity. Only an unanswered create
    // may have made our TrainJob: its failure names it (its UID is not known). A definite refusal
    // names no ref: the TrainJob in the way, if any, is not this attempt's.
    const job = await steps.run(6, `TrainJob ${namespace}/${name}`, (calls) => calls.createTrainJob({ trainJob, copy }), created.ref ?? { namespace, name, uid: '' });
    const ref: TrainJobRef = { namespace, name, uid: job.uid };
    created.ref = ref;
    progress.created(job.uid);

    // Steps 7 and 8, folded like 2 and 5.
    const owner = { namespace, copy, trainJob: { name, uid: job.uid } };
    const waitingFor7 = `the owner reference of runtime copy ${namespace}/${name}`;
    const waitingFor8 = `the read-back of TrainJob ${namespace}/${name}`;
    steps.folded(ownerFoldAnswers(await firstAttempt(progress, { 7: waitingFor7, 8: waitingFor8 }, () => acts.setOwnerThenReadBack(owner), ref)));
    await steps.run(7, waitingFor7, (calls) => calls.setOwner(owner), ref);
    created.ownerSet = true;

    // Step 8: read back and compare what we wrote.
    const read = await steps.run(8, waitingFor8, (calls) => calls.readBack({ namespace, name }), ref);
    const differences = compareReadBack(trainJob, read, config);
    if (read.metadata.uid !== job.uid) differences.unshift(`metadata.uid: wrote ${job.uid}, read ${read.metadata.uid ?? '(none)'}`);
    if (differences.length > 0) throw new DispatchError('ErrRejected', differences, 8, ref);

    // Step 9: in Kueue mode, the Workload with dispatch's gate and admission check.
    if (config.mode === 'kueue') {
      await steps.run(9, `the Workload of TrainJob ${namespace}/${name}`, (calls) => calls.waitForWorkload({ config, ref }), ref);
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
    const step = progress.step;
    if (!mustUndo(step, isCancellation(error))) throw unnamedUnlessUnknown(error, step);
    const left = await undo(acts, { namespace, name, token, trainJob, config, created, step, cause: error });
    throw withLeft(error, left, created.ref);
  }
}

/**
 * Steps 2 and 5 on their first attempt, as one local activity. A cancellation while it ran may have
 * come after the copy's create acted: the Start then ends at step 5, whose undo removes this
 * attempt's copy if it finds one (by name, carrying the attempt's token, with no owner).
 */
async function foldCopy(
  acts: StartActivities,
  progress: ProgressReporter,
  waitingFor: { 2: string; 5: string },
  input: { valid: ValidRequest; config: Config; probe: boolean },
): Promise<CopyFold> {
  const { namespace } = input.config;
  try {
    return await firstAttempt(progress, waitingFor, () => acts.readRuntimeThenCopy({ namespace, ...input }));
  } catch (error) {
    if (!isCancellation(error)) throw error;
    progress.enter(5, waitingFor[5]);
    const { job, submission, attempt } = input.valid.request;
    const name = trainJobName(job, submission);
    const token = attemptToken(namespace, name, attempt);
    const created: Created = { ownerSet: false, adoptedEarlier: false };
    const left = await undo(acts, { namespace, name, token, config: input.config, created, step: 5, cause: error });
    throw withLeft(error, left, undefined);
  }
}

/**
 * The failure after the undo: it names the TrainJob, and says why the stop left it when it
 * did (the caller took it over, or an earlier run made it). A cancellation stays a cancellation.
 */
function withLeft(error: unknown, left: LeftObject[], ref: TrainJobRef | undefined): unknown {
  if (!(error instanceof DispatchError)) return error;
  const named = error.ref ?? left[0]?.ref ?? ref;
  if (left.length === 0 && named === error.ref) return error;
  return new DispatchError(error.type, [...error.reasons, ...left.map((l) => l.reason)], error.step, named, error.evidence);
}

/**
 * A failure at step 6 names the TrainJob only when the create stayed unanswered, so it may exist
 * (ErrOutcomeUnknown); a definite refusal's ref would name somebody else's TrainJob.
 */
function unnamedUnlessUnknown(error: unknown, step: number): unknown {
  if (step !== 6 || !(error instanceof DispatchError) || error.type === 'ErrOutcomeUnknown' || !error.ref) return error;
  return new DispatchError(error.type, error.reasons, error.step, undefined, error.evidence);
}

/**
 * Stops what this attempt created, even when the Start itself was cancelled. When the stop fails
 * too, the outcome is unknown: the TrainJob may still exist.
 */
async function undo(
  acts: StartActivities,
  input: { namespace: string; name: string; token: string; trainJob?: TrainJob; config: Config; created: Created; step: number; cause: unknown },
): Promise<LeftObject[]> {
  const { namespace, name, token, trainJob, config, created, step, cause } = input;
  const { ownerSet, copyUid, ref, adoptedEarlier } = created;
  try {
    const stopped = await CancellationScope.nonCancellable(() =>
      acts.undoStart({
        namespace,
        name,
        token,
        ownerSet,
        step,
        ...(trainJob ? { trainJob } : {}),
        mode: config.mode,
        kueue: config.kueue,
        ...(adoptedEarlier ? { adoptedEarlier } : {}),
        ...(copyUid ? { copyUid } : {}),
        ...(ref ? { ref, trainJobUid: ref.uid } : {}),
      }),
    );
    // Results recorded before the stop could leave anything carry no `left`.
    return stopped.left ?? [];
  } catch (stopError) {
    const stop = classify(stopError, step, 'ErrOutcomeUnknown', `stopping TrainJob ${namespace}/${name}`, ref);
    const first = cause instanceof DispatchError ? cause.reasons : isCancellation(cause) ? ['the Start was cancelled'] : [String(cause)];
    throw new DispatchError('ErrOutcomeUnknown', [...first, ...stop.reasons.map((r) => `the stop failed too: ${r}`)], step, ref ?? { namespace, name, uid: '' });
  }
}
