// Steps 6, 7 and 8 of Start, and the compensation that stops what Start created.
import { Trainer } from '../model/constants.js';
import { DispatchError, type ObjectRef } from '../model/errors.js';
import type { TrainJob } from '../model/kube.js';
import { attemptTokenOf } from '../core/create-conflict.js';
import { decideLookedUp, stopTargets, type StopObject } from '../core/stop-plan.js';
import { callsFor, type ActivityEnv } from './context.js';
import { createOrAdopt } from './create-or-adopt.js';
import { describeRefusal, type KubeAnswer } from './kube-call.js';
import { describeObject, TRAINING_RUNTIMES, TRAINJOBS, type NamespacedKind, type ObjectCalls } from './objects.js';
import type { CreatedObject } from './runtime-activities.js';

const KINDS: Record<StopObject, NamespacedKind> = { trainJob: TRAINJOBS, copy: TRAINING_RUNTIMES };

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
     * Compensation (docs/contract.md §7): deletes, with Background propagation, what the stop plan
     * names (src/core/stop-plan.ts): this attempt's TrainJob, and the runtime copy too when its owner
     * reference was never set; each by the UID the workflow learnt, or, when its create went
     * unanswered, looked up by name and deleted only if decideLookedUp finds it this attempt's. A
     * definite refusal is ErrOutcomeUnknown: the TrainJob may still exist.
     */
    async stopTrainJob(input: StopInput): Promise<{ deleted: string[] }> {
      const calls = callsFor(env);
      const problems: string[] = [];
      const deleted: string[] = [];
      for (const target of stopTargets(input)) {
        const kind = KINDS[target.object];
        const where = describeObject(kind, input.namespace, input.name);
        let uid = target.uid;
        if (!uid) {
          const found = await calls.get(kind, input.namespace, input.name);
          if (found.answered === 'definite' && found.status !== 404) {
            problems.push(`reading ${where}: ${describeRefusal(found)}`);
            continue;
          }
          const decision = decideLookedUp(target.object, found.answered === 'ok' ? found.value : undefined, input.token);
          if (!decision.delete) continue;
          uid = decision.uid;
        }
        const problem = await deleteOwn(calls, kind, input.namespace, { name: input.name, uid });
        if (problem) problems.push(problem);
        else deleted.push(where);
      }
      if (problems.length > 0) throw new DispatchError('ErrOutcomeUnknown', problems, input.step, input.ref);
      return { deleted };
    },
  };
}
