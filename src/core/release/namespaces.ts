// Release isolation (docs/contract.md §10): several releases share one Temporal namespace and one
// cluster, each acting in a Kubernetes namespace of its own. A worker acts only in the namespace a
// workflow's id names, and tells from its task queue's pollers whether a worker of another
// namespace polls the same queue. Pure: the activities' guard and the worker's queue check use it.
import { namespaceOfWorkerIdentity, namespaceOfWorkflowId, OPERATION_NAMES, parseOperationWorkflowId } from '../../contract/names.js';
import { DispatchError } from '../../model/errors.js';

/** Where this worker acts: the configuration's namespace and the task queue it polls. */
export interface WorkerPlace {
  namespace: string;
  taskQueue: string;
}

/**
 * The refusal of a workflow whose id names another namespace than the worker's, before any call:
 * ErrRejected naming both namespaces and the shared task queue. Undefined when the id names this
 * worker's namespace, or none (an id no dispatch client makes).
 */
export function foreignNamespaceRefusal(workflowId: string, place: WorkerPlace): DispatchError | undefined {
  const named = namespaceOfWorkflowId(workflowId);
  if (named === undefined || named.namespace === place.namespace) return undefined;
  const why =
    `workflow ${workflowId} names namespace ${named.namespace}, but the worker that took it acts in namespace ${place.namespace}: ` +
    `task queue ${place.taskQueue} is polled by workers of both; give each release a task queue of its own`;
  // An operation's refusal begins as its own check of a ref of another namespace does (core/operations/identity.ts).
  const operation = parseOperationWorkflowId(workflowId);
  const head = operation ? `${OPERATION_NAMES[operation.op]} of TrainJob ${operation.ref.namespace}/${operation.ref.name}: dispatch works in namespace ${place.namespace} only: ` : '';
  // A Start's refusal is one of its backend gates' (step 1); the other workflows have no steps.
  return new DispatchError('ErrRejected', [`${head}${why}`], named.kind === 'start' ? 1 : 0);
}

/** What a task queue's pollers say of who else serves it. */
export interface QueueSharing {
  /** The other namespaces whose dispatch workers poll this worker's task queue, sorted. */
  otherNamespaces: string[];
  /** Pollers that are no dispatch worker (their identity names no namespace). */
  unidentifiedPollers: string[];
}

export function queueSharing(pollerIdentities: readonly string[], place: WorkerPlace): QueueSharing {
  const others = new Set<string>();
  const unidentified = new Set<string>();
  for (const identity of pollerIdentities) {
    const namespace = namespaceOfWorkerIdentity(identity);
    if (namespace === undefined) unidentified.add(identity);
    else if (namespace !== place.namespace) others.add(namespace);
  }
  return { otherNamespaces: [...others].sort(), unidentifiedPollers: [...unidentified].sort() };
}

/** The reason a shared queue is reported under (log, readiness details), or undefined when it is not shared. */
export function sharingReason(sharing: QueueSharing, place: WorkerPlace): string | undefined {
  if (sharing.otherNamespaces.length === 0) return undefined;
  return (
    `task queue ${place.taskQueue} is also polled by workers of namespace ${sharing.otherNamespaces.join(', ')} ` +
    `(this worker acts in ${place.namespace}): their workflows are refused here and ours there`
  );
}
