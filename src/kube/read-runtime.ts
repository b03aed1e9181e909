// Step 2's read of the source runtime, shared by its activity and the offline `render`.
import { DispatchError } from '../model/errors.js';
import type { TrainerRuntime } from '../model/kube.js';
import { runtimeKey, type RuntimeName } from '../core/objects/runtime-name.js';
import { refusedCall } from './create-or-adopt.js';
import type { ObjectCalls } from './objects.js';

/**
 * Step 2, shared by the activity and the offline `render`: a missing runtime is ErrUnsupported, a
 * read RBAC forbids ErrReadOnly, any other refusal ErrRejected (classifyRefusal). Unanswered throws
 * KubeUnanswered (the activity retries it).
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
