// Release isolation's metrics (docs/contract.md §10, docs/observability.md): workflows refused for
// naming another namespace, and the other namespaces whose workers poll this worker's task queue.
// Either above zero means two releases share a task queue.
import { Counter, Gauge, type Registry } from 'prom-client';

export interface ReleaseMetrics {
  /** Workflows this worker refused because their id names another namespace, by that namespace. */
  foreignWorkflows: Counter<'workflow_namespace'>;
  /** 1 for each other namespace whose dispatch workers poll this worker's task queue (the last check). */
  queueSharedWith: Gauge<'other_namespace'>;
  /** Sets queueSharedWith to exactly these namespaces. */
  sharedWith(namespaces: readonly string[]): void;
}

export function createReleaseMetrics(registry: Registry): ReleaseMetrics {
  const foreignWorkflows = new Counter({
    name: 'dispatch_foreign_workflows_refused_total',
    help: "Workflows refused ErrRejected before any call because their id names another namespace than this worker's: a worker of another release polls the same task queue",
    labelNames: ['workflow_namespace'] as const,
    registers: [registry],
  });
  const queueSharedWith = new Gauge({
    name: 'dispatch_task_queue_shared',
    help: "1 for each other namespace whose dispatch workers poll this worker's task queue, from the queue's pollers at the last check: two releases share a task queue",
    labelNames: ['other_namespace'] as const,
    registers: [registry],
  });
  return {
    foreignWorkflows,
    queueSharedWith,
    sharedWith(namespaces) {
      queueSharedWith.reset();
      for (const namespace of namespaces) queueSharedWith.set({ other_namespace: namespace }, 1);
    },
  };
}
