// The worker's side of release isolation (docs/contract.md §10): its Temporal identity names the
// namespace it acts in, the workflows of another namespace its activities refuse are counted and
// logged, and its task queue's pollers are read for workers of other namespaces.
import type { Client } from '@temporalio/client';
import { hostname } from 'node:os';
import type { OnForeignWorkflow } from '../activities/namespace-guard.js';
import { workerIdentity } from '../contract/names.js';
import type { Config } from '../model/config.js';
import { log } from '../observability/log.js';
import type { DispatchMetrics } from '../observability/metrics.js';
import { createQueueSharingCheck, type QueueSharingCheck } from './queue-sharing.js';

export interface ReleaseIsolation {
  /** `dispatch-kubeflow/<namespace>/<pid>@<host>`: what the other pollers of the queue see. */
  identity: string;
  onForeignWorkflow: OnForeignWorkflow;
  queueSharing: QueueSharingCheck;
}

export function releaseIsolation(input: {
  client: Client;
  temporalNamespace: string;
  config: Config;
  metrics: DispatchMetrics;
  queueCheckIntervalMs?: number;
}): ReleaseIsolation {
  const { config, metrics } = input;
  const place = { namespace: config.namespace, taskQueue: config.temporal.taskQueue };
  return {
    identity: workerIdentity(config.namespace, `${process.pid}@${hostname()}`),
    onForeignWorkflow: ({ workflowId, workflowNamespace, refusal }) => {
      metrics.release.foreignWorkflows.inc({ workflow_namespace: workflowNamespace });
      log('refused a workflow of another namespace', { workflowId, reasons: refusal.reasons }, 'warn');
    },
    queueSharing: createQueueSharingCheck({
      client: input.client,
      temporalNamespace: input.temporalNamespace,
      place,
      ...(input.queueCheckIntervalMs !== undefined ? { intervalMs: input.queueCheckIntervalMs } : {}),
      onChange: (sharing, reason) => {
        metrics.release.sharedWith(sharing.otherNamespaces);
        if (reason) log(reason, { otherNamespaces: sharing.otherNamespaces }, 'warn');
        else log(`task queue ${place.taskQueue} is no longer shared with another namespace`);
      },
      log: (message, fields) => log(message, fields, 'warn'),
    }),
  };
}
