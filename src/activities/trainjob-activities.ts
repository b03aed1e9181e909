// Steps 6, 7 and 8 of Start, and the compensation that stops what Start created.
import { Trainer } from '../model/constants.js';
import { DispatchError, type ObjectRef } from '../model/errors.js';
import { KueueConfigSchema, type Config, type Mode } from '../model/config.js';
import type { KubeObject, TrainJob } from '../model/kube.js';
import { attemptTokenOf } from '../core/start/create-conflict.js';
import { decideCopyUndo, decideTrainJobUndo, undoTargets, type UndoDecision, type UndoObject } from '../core/start/undo-plan.js';
import { callsFor, type ActivityEnv } from './context.js';
import { createOrAdopt } from './create-or-adopt.js';
import { describeRefusal, type KubeAnswer } from './kube-call.js';
import { describeObject, TRAINING_RUNTIMES, TRAINJOBS, type NamespacedKind, type ObjectCalls } from './objects.js';
import type { CreatedObject } from './runtime-activities.js';

const KINDS: Record<UndoObject, NamespacedKind> = { trainJob: TRAINJOBS, copy: TRAINING_RUNTIMES };

/** Deletes by UID, treating "already gone" and "not ours any more" as done. Unanswered throws (retried). */
async function deleteOwn(calls: ObjectCalls, kind: NamespacedKind, namespace: string, object: CreatedObject): Promise<string | undefined> {
  const answer: KubeAnswer<unknown> = await calls.deleteByUid(kind, namespace, object.name, object.uid);
  if (answer.answered === 'ok' || answer.status === 404 || answer.status === 409) return undefined;
  return `deleting ${describeObject(kind, namespace, object.name)}: ${describeRefusal(answer)}`;
}

export interface StopInput {
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
  /** The step whose failure is being compensated, and the TrainJob's ref, for the failure if the stop fails. */
  step: number;
  ref?: ObjectRef;
  /** The TrainJob as Start wrote it: a TrainJob looked up by name is deleted only while it still reads back so. */
  trainJob?: TrainJob;
  /** The mode and dispatch's Kueue gate, to tell an opened TrainJob (absent from inputs recorded before them: plain, the default gate). */
  mode?: Mode;
  kueue?: Config['kueue'];
  /** Step 5 adopted the TrainJob from an earlier run of this attempt: it is left, never deleted. */
  adoptedEarlier?: boolean;
}

/** A TrainJob (and its copy) the stop left as it is, and why: the Start's failure names it. */
export interface LeftObject {
  ref: ObjectRef;
  reason: string;
}

export interface StopResult {
  deleted: string[];
  /** Present when the stop left this attempt's TrainJob to the caller (docs/contract.md §7). */
  left?: LeftObject[];
}

/** How often the stop reads and decides again after a write raced its delete. */
export const STOP_READS = 5;

type StopOutcome = UndoDecision | { do: 'problem'; reason: string };

/**
 * Reads the object, decides with `decide`, and deletes with the UID and resourceVersion read as
 * preconditions; a 409 (it changed meanwhile: an Open or Hold raced the delete) reads and decides
 * again. A delete answered 404 is done. Unanswered throws (the activity is retried, and re-reads).
 */
async function stopOne(calls: ObjectCalls, kind: NamespacedKind, namespace: string, name: string, decide: (found: KubeObject | undefined) => UndoDecision): Promise<StopOutcome> {
  const where = describeObject(kind, namespace, name);
  for (let read = 0; read < STOP_READS; read += 1) {
    const found = await calls.get(kind, namespace, name);
    if (found.answered === 'definite' && found.status !== 404) return { do: 'problem', reason: `reading ${where}: ${describeRefusal(found)}` };
    const decision = decide(found.answered === 'ok' ? found.value : undefined);
    if (decision.do !== 'delete') return decision;
    const answer = await calls.deleteByUid(kind, namespace, name, decision.uid, decision.resourceVersion);
    if (answer.answered === 'ok' || answer.status === 404) return decision;
    if (answer.status !== 409) return { do: 'problem', reason: `deleting ${where}: ${describeRefusal(answer)}` };
  }
  return { do: 'problem', reason: `deleting ${where}: it changed each of the ${STOP_READS} times it was read` };
}

export function trainJobActivities(env: ActivityEnv) {
  return {
    /**
     * Step 6. Creates the TrainJob. A 409 whose object carries this attempt's token is the earlier,
     * unanswered create of this attempt: it is adopted (docs/contract.md §7; decideConflict). A
     * definite refusal deletes the runtime copy (unless another TrainJob runs on it) and throws the cause.
     */
    async createTrainJob(input: { trainJob: TrainJob; copy: CreatedObject }): Promise<CreatedObject & { adopted: boolean }> {
      const calls = callsFor(env);
      const { name = '', namespace = '' } = input.trainJob.metadata;
      const rule = { adopt: 'same-token', token: attemptTokenOf(input.trainJob), copyName: input.copy.name } as const;
      const outcome = await createOrAdopt(calls, TRAINJOBS, input.trainJob, rule, env.requestTimeoutMs);
      if (outcome.do !== 'refuse') return { name, uid: outcome.uid, adopted: outcome.do === 'adopt' };
      const reasons = [...outcome.reasons];
      if (!outcome.keepCopy) {
        const notDeleted = await deleteOwn(calls, TRAINING_RUNTIMES, namespace, input.copy);
        if (notDeleted) reasons.push(notDeleted);
      }
      throw new DispatchError(outcome.type, reasons, 6);
    },

    /** Step 7. Makes the TrainJob the copy's owner, so that deleting the TrainJob collects the copy. */
    async setOwner(input: { namespace: string; copy: CreatedObject; trainJob: CreatedObject }): Promise<void> {
      const owner = {
        apiVersion: Trainer.apiVersion,
        kind: Trainer.trainJobKind,
        name: input.trainJob.name,
        uid: input.trainJob.uid,
      };
      const answer = await callsFor(env).patch(TRAINING_RUNTIMES, input.namespace, input.copy.name, [
        { op: 'test', path: '/metadata/uid', value: input.copy.uid },
        { op: 'add', path: '/metadata/ownerReferences', value: [owner] },
      ]);
      if (answer.answered === 'definite') {
        const where = describeObject(TRAINING_RUNTIMES, input.namespace, input.copy.name);
        throw new DispatchError('ErrRejected', [`owner reference could not be set on ${where}: ${describeRefusal(answer)}`], 7);
      }
    },

    /** Step 8. Reads the TrainJob back; the workflow compares it with what it wrote (pure core). */
    async readBack(input: { namespace: string; name: string }): Promise<TrainJob> {
      const answer = await callsFor(env).get(TRAINJOBS, input.namespace, input.name);
      if (answer.answered === 'definite') {
        const where = describeObject(TRAINJOBS, input.namespace, input.name);
        throw new DispatchError('ErrRejected', [`reading back ${where}: ${describeRefusal(answer)}`], 8);
      }
      const { metadata, spec } = answer.value as TrainJob;
      const { name, namespace, uid, labels, annotations, deletionTimestamp } = metadata;
      return { metadata: { name, namespace, uid, labels, annotations, deletionTimestamp }, spec };
    },

    /**
     * Compensation (docs/contract.md §7): stops what the undo plan names (src/core/start/undo-plan.ts):
     * this attempt's TrainJob, and the runtime copy too when its owner reference was never set. Each
     * is read, decided on (decideTrainJobUndo, decideCopyUndo) and deleted with Background
     * propagation and preconditions; a TrainJob the caller took over, or adopted from an earlier
     * run, is left and named in `left`. A definite refusal is ErrOutcomeUnknown: the TrainJob may
     * still exist.
     */
    async stopTrainJob(input: StopInput): Promise<StopResult> {
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
        const outcome = await stopOne(calls, KINDS[target.object], namespace, name, decide);
        if (outcome.do === 'problem') problems.push(outcome.reason);
        else if (outcome.do === 'delete') deleted.push(describeObject(KINDS[target.object], namespace, name));
        else if (outcome.do === 'leave') left.push({ ref: { namespace, name, uid: outcome.uid }, reason: outcome.reason });
      }
      if (problems.length > 0) throw new DispatchError('ErrOutcomeUnknown', problems, input.step, input.ref);
      return left.length > 0 ? { deleted, left } : { deleted };
    },
  };
}
