// The Watches running on a namespace's TrainJobs, from Temporal's visibility: the Watch waker
// (watch-waker.ts) wakes those whose TrainJob a fresh list no longer holds. A TrainJob created and
// deleted while the worker's watch was broken (an API server restart) or while no worker ran
// (kill -9 of every one) sends the feed no change at all: neither its coming nor its going is in
// any list or watch event the worker sees, and its Watch would wait out its whole timer.
import type { Client } from '@temporalio/client';
import { operationWorkflowIdNamespacePrefix, parseOperationWorkflowId, WorkflowTypes } from '../contract/names.js';
import type { TrainJobRef } from '../model/operations.js';
import { WAKE_DEADLINE_MS } from './wake-signal.js';

/** The refs of the Watches running on TrainJobs of `namespace`. Visibility lags a just-started one by a moment. */
export const runningWatches =
  (client: Client, deadlineMs = WAKE_DEADLINE_MS) =>
  (namespace: string): Promise<TrainJobRef[]> =>
    client.withDeadline(Date.now() + deadlineMs, async () => {
      const prefix = operationWorkflowIdNamespacePrefix('watch', namespace);
      const query = `WorkflowType = '${WorkflowTypes.watch}' AND ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH '${prefix}'`;
      const refs: TrainJobRef[] = [];
      for await (const execution of client.workflow.list({ query })) {
        const parsed = parseOperationWorkflowId(execution.workflowId);
        if (parsed?.op === 'watch' && parsed.ref.namespace === namespace) refs.push(parsed.ref);
      }
      return refs;
    });
