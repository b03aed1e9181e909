// Steps 2 and 5 of Start: read the source runtime; create (or, on a retried Start, reuse) its copy.
import { DispatchError } from '../model/errors.js';
import type { TrainerRuntime } from '../model/kube.js';
import { runtimeKey, type RuntimeName } from '../core/validated.js';
import { callsFor, type ActivityEnv } from './context.js';
import { createOrAdopt, refusedCall } from './create-or-adopt.js';
import { TRAINING_RUNTIMES, type ObjectCalls } from './objects.js';

export interface CreatedObject {
  name: string;
  uid: string;
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
  const { type, reasons } = refusedCall(`reading runtime ${key}`, answer);
  throw new DispatchError(type, reasons, 2);
}

export function runtimeActivities(env: ActivityEnv) {
  return {
    async readRuntime(input: { namespace: string; runtime: RuntimeName }): Promise<TrainerRuntime> {
      return fetchRuntime(callsFor(env), input.namespace, input.runtime);
    },

    /**
     * Step 5. Creates the copy. A copy of the name left by an earlier call of this Start is reused
     * when it has no owner and the same spec; one being deleted is waited for, then created afresh.
     */
    async createRuntimeCopy(input: { copy: TrainerRuntime }): Promise<CreatedObject & { reused: boolean }> {
      const name = input.copy.metadata?.name ?? '';
      const outcome = await createOrAdopt(callsFor(env), TRAINING_RUNTIMES, input.copy, { adopt: 'unowned-same-spec', wanted: input.copy });
      if (outcome.do === 'refuse') throw new DispatchError(outcome.type, outcome.reasons, 5);
      return { name, uid: outcome.uid, reused: outcome.do === 'adopt' };
    },
  };
}
