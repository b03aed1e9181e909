// Steps 6, 7 and 8 of Start (its undo, the compensation, is undo-start-activities.ts).
import { Trainer } from '../model/constants.js';
import { DispatchError } from '../model/errors.js';
import type { TrainJob } from '../model/kube.js';
import { attemptTokenOf } from '../core/start/create-conflict.js';
import { callsFor, createWaits, type ActivityEnv } from './context.js';
import { createOrAdopt } from '../kube/create-or-adopt.js';
import { describeRefusal, type KubeAnswer } from '../kube/call.js';
import { objectAddress, TRAINING_RUNTIMES, TRAINJOBS, type NamespacedKind, type ObjectCalls } from '../kube/objects.js';
import type { CreatedObject } from './runtime-activities.js';

/** Deletes by UID, treating "already gone" and "not ours any more" as done. Unanswered throws (retried). */
async function deleteOwn(calls: ObjectCalls, kind: NamespacedKind, namespace: string, object: CreatedObject): Promise<string | undefined> {
  const answer: KubeAnswer<unknown> = await calls.deleteByUid(kind, namespace, object.name, object.uid);
  if (answer.answered === 'ok' || answer.status === 404 || answer.status === 409) return undefined;
  return `deleting ${objectAddress(kind, namespace, object.name)}: ${describeRefusal(answer)}`;
}

export function trainJobActivities(env: ActivityEnv) {
  return {
    /**
     * Step 6. Creates the TrainJob. A 409 whose object carries this attempt's token is the earlier,
     * unanswered create of this attempt: it is adopted (docs/contract.md §7; decideConflict). A
     * definite refusal deletes the runtime copy (unless another TrainJob runs on it) and throws the cause;
     * a webhook that never saw the copy within the budget is ErrUnreachable and keeps it (runtime-lag.ts).
     */
    async createTrainJob(input: { trainJob: TrainJob; copy: CreatedObject }): Promise<CreatedObject & { adopted: boolean }> {
      const calls = callsFor(env);
      const { name = '', namespace = '' } = input.trainJob.metadata;
      const rule = { adopt: 'same-token', token: attemptTokenOf(input.trainJob), copyName: input.copy.name } as const;
      const outcome = await createOrAdopt(calls, TRAINJOBS, input.trainJob, rule, createWaits(), env.requestTimeoutMs);
      // The copy stays for the retried Start: a webhook that has not seen it yet refused nothing.
      if (outcome.do === 'unseen') throw new DispatchError('ErrUnreachable', [outcome.reason], 6);
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
        const where = objectAddress(TRAINING_RUNTIMES, input.namespace, input.copy.name);
        throw new DispatchError('ErrRejected', [`owner reference could not be set on ${where}: ${describeRefusal(answer)}`], 7);
      }
    },

    /** Step 8. Reads the TrainJob back; the workflow compares it with what it wrote (pure core). */
    async readBack(input: { namespace: string; name: string }): Promise<TrainJob> {
      const answer = await callsFor(env).get(TRAINJOBS, input.namespace, input.name);
      if (answer.answered === 'definite') {
        const where = objectAddress(TRAINJOBS, input.namespace, input.name);
        // A TrainJob gone (404) says nothing of what the cluster allows: something deleted it (for
        // a probe, maybe an earlier execution of a lost workflow task), so the preflight does not
        // count it as a refusal of the start gate (errors.ts, Evidence).
        throw new DispatchError('ErrRejected', [`reading back ${where}: ${describeRefusal(answer)}`], 8, undefined, { definite: answer.status !== 404 });
      }
      const { metadata, spec } = answer.value as TrainJob;
      const { name, namespace, uid, labels, annotations, deletionTimestamp } = metadata;
      return { metadata: { name, namespace, uid, labels, annotations, deletionTimestamp }, spec };
    },
  };
}
