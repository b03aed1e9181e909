// A delete decided from a fresh read (for Start's undo: src/core/start/undo-plan.ts): read the object,
// let the caller's decision say what to do with what was read, and delete with the UID and
// resourceVersion read as preconditions; a 409 (it changed meanwhile: an Open or Hold raced the
// delete) reads and decides again. A delete answered 404 is done. Unanswered throws KubeUnanswered.
import type { KubeObject } from '../model/kube.js';
import { describeRefusal } from './call.js';
import { objectAddress, type NamespacedKind, type ObjectCalls } from './objects.js';

/** How often the undo reads and decides again after a write raced its delete. */
export const STOP_READS = 5;

/** What the caller decides from the object as read (undefined: 404). */
export type DeleteDecision = { do: 'delete'; uid: string; resourceVersion?: string } | { do: 'nothing' } | { do: 'leave'; uid: string; reason: string };

export type DeleteOutcome<D extends DeleteDecision> = D | { do: 'problem'; reason: string };

export async function deleteAsDecided<D extends DeleteDecision>(
  calls: ObjectCalls,
  kind: NamespacedKind,
  namespace: string,
  name: string,
  decide: (found: KubeObject | undefined) => D,
): Promise<DeleteOutcome<D>> {
  const where = objectAddress(kind, namespace, name);
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
