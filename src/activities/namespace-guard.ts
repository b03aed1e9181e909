// The release guard (docs/contract.md §10): before any activity acts, the workflow's id must name
// the namespace this worker acts in. Two releases that share a task queue (one Temporal namespace,
// the same queue name) would otherwise create each other's TrainJobs in the wrong namespace, with
// the wrong release's credentials. Every activity is guarded, not only the first of a workflow: on
// a shared queue a workflow's later activities may be taken by the other release's worker.
import { Context } from '@temporalio/activity';
import { foreignNamespaceRefusal, type WorkerPlace } from '../core/release/namespaces.js';
import { namespaceOfWorkflowId } from '../contract/names.js';
import type { DispatchError } from '../model/errors.js';

type ActivityFn = (...args: never[]) => Promise<unknown>;

/** Told of each refusal (the worker counts and logs it). */
export type OnForeignWorkflow = (foreign: { workflowId: string; workflowNamespace: string; refusal: DispatchError }) => void;

/** The id of the workflow the running activity belongs to; undefined outside an activity (a unit test's direct call). */
function currentWorkflowId(): string | undefined {
  try {
    return Context.current().info.workflowExecution?.workflowId;
  } catch {
    return undefined;
  }
}

/**
 * The same activities, each refusing (ErrRejected, naming both namespaces) a workflow of another
 * namespace. The prepare activities (validation, the settings; no Kubernetes call) run first and
 * are refused after, so that a request or ref that is invalid is still ErrInvalid wherever it lands.
 */
export function guardNamespace<T extends Record<string, ActivityFn>>(activities: T, place: () => WorkerPlace, onForeign?: OnForeignWorkflow): T {
  const refuseForeign = () => {
    const workflowId = currentWorkflowId();
    const refusal = workflowId === undefined ? undefined : foreignNamespaceRefusal(workflowId, place());
    if (refusal && workflowId !== undefined) {
      onForeign?.({ workflowId, workflowNamespace: namespaceOfWorkflowId(workflowId)?.namespace ?? '', refusal });
      throw refusal;
    }
  };
  const guarded = Object.entries(activities).map(([name, fn]): [string, ActivityFn] => [
    name,
    name.startsWith('prepare')
      ? async (...args) => {
          const prepared = await fn(...args);
          refuseForeign();
          return prepared;
        }
      : async (...args) => {
          refuseForeign();
          return fn(...args);
        },
  ]);
  return Object.fromEntries(guarded) as T;
}
