// Steps 2 and 5 of Start: read the source runtime; create (or, on a retried Start, reuse) its copy.
import { DispatchError, failure, toApplicationFailure } from '../model/errors.js';
import type { TrainerRuntime } from '../model/kube.js';
import { copyReuseReasons, isBeingDeleted } from '../core/copy-reuse.js';
import { classifyRefusal } from '../core/refusal-type.js';
import { runtimeKey, type RuntimeName } from '../core/validated.js';
import { callsFor, DELETION_POLL_MS, pause, type ActivityEnv } from './context.js';
import { describeRefusal } from './kube-call.js';
import { describeObject, TRAINING_RUNTIMES, type ObjectCalls } from './objects.js';

export interface CreatedObject {
  name: string;
  uid: string;
}

/** A definite refusal of a call, typed by classifyRefusal: ErrReadOnly for RBAC's 403 alone (CONTRACT §6). */
function refusal(what: string, answer: { status: number; reason: string; message: string }, step: number): DispatchError {
  const { type, reason } = classifyRefusal(what, answer, describeRefusal(answer));
  return new DispatchError(type, [reason], step);
}

/**
 * Step 2, shared by the activity and the offline `render`: a missing runtime is ErrUnsupported, a
 * read RBAC forbids ErrReadOnly, any other refusal ErrRejected (classifyRefusal). Unanswered throws
 * (retried by Temporal).
 */
export async function fetchRuntime(calls: ObjectCalls, namespace: string, runtime: RuntimeName): Promise<TrainerRuntime> {
  const key = runtimeKey(runtime);
  const answer = await calls.getRuntime(runtime, namespace);
  if (answer.answered === 'ok') {
    const { apiVersion, kind, metadata, spec } = answer.value as TrainerRuntime;
    // Only what the later steps read: keeps the workflow history small.
    return { apiVersion, kind, metadata: { name: metadata?.name, namespace: metadata?.namespace }, spec };
  }
  if (answer.status === 404) throw new DispatchError('ErrUnsupported', [`runtime ${key} does not exist`], 2);
  throw refusal(`reading runtime ${key}`, answer, 2);
}

export function runtimeActivities(env: ActivityEnv) {
  return {
    async readRuntime(input: { namespace: string; runtime: RuntimeName }): Promise<TrainerRuntime> {
      return fetchRuntime(callsFor(env), input.namespace, input.runtime).catch((error: unknown) =>
        Promise.reject(error instanceof DispatchError ? toApplicationFailure(error) : error),
      );
    },

    /**
     * Step 5. Creates the copy. A copy of the name left by an earlier call of this Start is reused
     * when it has no owner and the same spec; one being deleted is waited for, then created afresh.
     */
    async createRuntimeCopy(input: { copy: TrainerRuntime }): Promise<CreatedObject & { reused: boolean }> {
      const calls = callsFor(env);
      const { name = '', namespace = '' } = input.copy.metadata ?? {};
      const where = describeObject(TRAINING_RUNTIMES, namespace, name);
      for (;;) {
        const created = await calls.create(TRAINING_RUNTIMES, namespace, input.copy);
        if (created.answered === 'ok') return { name, uid: created.value.metadata?.uid ?? '', reused: false };
        if (created.status !== 409) throw toApplicationFailure(refusal(`creating ${where}`, created, 5));

        const existing = await calls.get(TRAINING_RUNTIMES, namespace, name);
        if (existing.answered === 'definite') {
          if (existing.status === 404) continue; // deleted between our create and our read
          throw toApplicationFailure(refusal(`reading existing ${where}`, existing, 5));
        }
        if (isBeingDeleted(existing.value)) {
          await pause(DELETION_POLL_MS, { waitingFor: `${where} to finish deleting` });
          continue;
        }
        const reasons = copyReuseReasons(existing.value as TrainerRuntime, input.copy);
        if (reasons.length > 0) throw failure('ErrRejected', reasons, 5);
        return { name, uid: existing.value.metadata?.uid ?? '', reused: true };
      }
    },
  };
}
