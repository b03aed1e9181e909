// The workflow ids of the operations after Start (docs/contract.md §9): `<op>/<ns>/<name>/<uid>`.
// One id per operation and TrainJob, so a second call while one runs attaches to it
// (USE_EXISTING), and an operation on a recreated TrainJob of the same name (another UID) is
// another workflow.
import { OPERATIONS, WorkflowTypes, type Operation } from '../../model/workflows.js';
import type { TrainJobRef } from '../../model/operations.js';

/** `<op>/<namespace>/<name>/<uid>`. */
export function operationWorkflowId(op: Operation, ref: TrainJobRef): string {
  return `${op}/${ref.namespace}/${ref.name}/${ref.uid}`;
}

export const openWorkflowId = (ref: TrainJobRef): string => operationWorkflowId('open', ref);
export const holdWorkflowId = (ref: TrainJobRef): string => operationWorkflowId('hold', ref);
export const releaseWorkflowId = (ref: TrainJobRef): string => operationWorkflowId('release', ref);
export const stopWorkflowId = (ref: TrainJobRef): string => operationWorkflowId('stop', ref);
export const watchWorkflowId = (ref: TrainJobRef): string => operationWorkflowId('watch', ref);

/** The prefix of every operation's id on one TrainJob name, whatever its UID (for visibility queries). */
export function operationWorkflowIdPrefix(op: Operation, namespace: string, name: string): string {
  return `${operationWorkflowIdNamespacePrefix(op, namespace)}${name}/`;
}

/** What the ids of an operation's workflows on every TrainJob of a namespace begin with. */
export function operationWorkflowIdNamespacePrefix(op: Operation, namespace: string): string {
  return `${op}/${namespace}/`;
}

const isOperation = (value: string): value is Operation =>
  (OPERATIONS as readonly string[]).includes(value);

/**
 * The operation and TrainJob an id names, or undefined when it is not such an id (a Start's id,
 * `start/<ns>/<name>/a<attempt>`, is not). Namespaces, names and UIDs never contain "/".
 */
export function parseOperationWorkflowId(
  id: string,
): { op: Operation; ref: TrainJobRef } | undefined {
  const parts = id.split('/');
  if (parts.length !== 4) return undefined;
  const [op, namespace, name, uid] = parts as [string, string, string, string];
  if (!isOperation(op) || namespace === '' || name === '' || uid === '') return undefined;
  return { op, ref: { namespace, name, uid } };
}

/** The workflow type a caller starts for an operation (`OpenTrainJob`, ...). */
export function operationWorkflowType(op: Operation): string {
  return WorkflowTypes[op];
}
