// Steps 6, 7 and 8 of Start, and the compensation that stops what Start created.
import { Annotations, Trainer } from '../model/constants.js';
import { failure, type ObjectRef } from '../model/errors.js';
import type { KubeObject, TrainJob } from '../model/kube.js';
import { isBeingDeleted } from '../core/copy-reuse.js';
import { classifyRefusal, type RefusalType } from '../core/refusal-type.js';
import { callsFor, DELETION_POLL_MS, pause, type ActivityEnv } from './context.js';
import { describeRefusal, type KubeAnswer } from './kube-call.js';
import { describeObject, TRAINING_RUNTIMES, TRAINJOBS, type ObjectCalls } from './objects.js';
import type { CreatedObject } from './runtime-activities.js';

const tokenOf = (object: KubeObject) => object.metadata?.annotations?.[Annotations.attemptToken];

/** Whether a TrainJob runs on the runtime copy of the given name. */
const refersTo = (trainJob: KubeObject, copyName: string) => {
  const ref = (trainJob as Partial<TrainJob>).spec?.runtimeRef;
  return ref?.kind === Trainer.trainingRuntimeKind && ref.name === copyName;
};

/** Deletes by UID, treating "already gone" and "not ours any more" as done. Unanswered throws (retried). */
async function deleteOwn(calls: ObjectCalls, kind: typeof TRAINJOBS, namespace: string, object: CreatedObject): Promise<string | undefined> {
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
     * unanswered create of this attempt: it is adopted (CONTRACT §7). A definite refusal deletes the
     * runtime copy (unless another TrainJob runs on it) and returns the cause.
     */
    async createTrainJob(input: { trainJob: TrainJob; copy: CreatedObject }): Promise<CreatedObject & { adopted: boolean }> {
      const calls = callsFor(env);
      const { name = '', namespace = '' } = input.trainJob.metadata;
      const where = describeObject(TRAINJOBS, namespace, name);
      const token = tokenOf(input.trainJob);
      const refuse = async (type: RefusalType, reason: string, keepCopy: boolean) => {
        const reasons = [reason];
        if (!keepCopy) {
          const notDeleted = await deleteOwn(calls, TRAINING_RUNTIMES, namespace, input.copy);
          if (notDeleted) reasons.push(notDeleted);
        }
        return failure(type, reasons, 6);
      };
      /** A definite refusal of one of our calls: its type by classifyRefusal; the copy is deleted. */
      const refused = async (what: string, answer: { status: number; reason: string; message: string }) => {
        const { type, reason } = classifyRefusal(what, answer, describeRefusal(answer));
        return refuse(type, reason, false);
      };
      for (;;) {
        const created = await calls.create(TRAINJOBS, namespace, input.trainJob);
        if (created.answered === 'ok') return { name, uid: created.value.metadata?.uid ?? '', adopted: false };
        if (created.status !== 409) throw await refused(`creating ${where}`, created);

        const existing = await calls.get(TRAINJOBS, namespace, name);
        if (existing.answered === 'definite') {
          if (existing.status === 404) continue;
          throw await refused(`reading existing ${where}`, existing);
        }
        if (isBeingDeleted(existing.value)) {
          await pause(DELETION_POLL_MS, { waitingFor: `${where} to finish deleting` });
          continue;
        }
        if (tokenOf(existing.value) === token) return { name, uid: existing.value.metadata?.uid ?? '', adopted: true };
        throw await refuse(
          'ErrRejected',
          `${where} already exists with attempt token ${tokenOf(existing.value) ?? '(none)'}; this attempt's is ${token}`,
          refersTo(existing.value, input.copy.name),
        );
      }
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
        throw failure('ErrRejected', [`owner reference could not be set on ${where}: ${describeRefusal(answer)}`], 7);
      }
    },

    /** Step 8. Reads the TrainJob back; the workflow compares it with what it wrote (pure core). */
    async readBack(input: { namespace: string; name: string }): Promise<TrainJob> {
      const answer = await callsFor(env).get(TRAINJOBS, input.namespace, input.name);
      if (answer.answered === 'definite') {
        const where = describeObject(TRAINJOBS, input.namespace, input.name);
        throw failure('ErrRejected', [`reading back ${where}: ${describeRefusal(answer)}`], 8);
      }
      const { metadata, spec } = answer.value as TrainJob;
      const { name, namespace, uid, labels, annotations, deletionTimestamp } = metadata;
      return { metadata: { name, namespace, uid, labels, annotations, deletionTimestamp }, spec };
    },

    /**
     * Compensation (CONTRACT §7): deletes this attempt's TrainJob by UID with Background propagation,
     * and the runtime copy too when its owner reference was never set. An object whose UID the
     * workflow learnt is deleted by that UID; one whose create went unanswered (a cancellation during
     * step 5 or 6) is looked up by name and deleted only if it carries this attempt's token. So an
     * object of the same name that this attempt did not create is never touched. A definite refusal
     * is ErrOutcomeUnknown: the TrainJob may still exist.
     */
    async stopTrainJob(input: StopInput): Promise<{ deleted: string[] }> {
      const calls = callsFor(env);
      const problems: string[] = [];
      const deleted: string[] = [];
      const targets: [typeof TRAINJOBS, string | undefined][] = [[TRAINJOBS, input.trainJobUid]];
      if (!input.ownerSet) targets.push([TRAINING_RUNTIMES, input.copyUid]);
      for (const [kind, knownUid] of targets) {
        const where = describeObject(kind, input.namespace, input.name);
        let uid = knownUid;
        if (!uid) {
          const found = await calls.get(kind, input.namespace, input.name);
          if (found.answered === 'definite') {
            if (found.status !== 404) problems.push(`reading ${where}: ${describeRefusal(found)}`);
            continue;
          }
          const owned = (found.value.metadata?.ownerReferences ?? []).length > 0;
          if (tokenOf(found.value) !== input.token || (kind === TRAINING_RUNTIMES && owned)) continue;
          uid = found.value.metadata?.uid ?? '';
        }
        const problem = await deleteOwn(calls, kind, input.namespace, { name: input.name, uid });
        if (problem) problems.push(problem);
        else deleted.push(where);
      }
      if (problems.length > 0) throw failure('ErrOutcomeUnknown', problems, input.step, input.ref);
      return { deleted };
    },
  };
}
