// The final state a chaos run's checker judges: every object of the run's namespace that a Start
// makes or that hangs off one (TrainJobs, runtime copies, Workloads, JobSets, Jobs, pods), the
// workflows still running on the run's task queues, and Find's answer for every lifecycle.
import { kubeCall, type KubeAccess } from '../../dev/harness/kube-access.js';
import { Annotations, Kueue, Labels, LabelValues, Trainer } from '../../src/model/constants.js';
import type { KubeObject } from '../../src/model/kube.js';
import type { FinalObject, FinalState, LifecycleRecord } from './history.js';
import type { ChaosStack } from './stack.js';

interface Listed extends KubeObject {
  status?: { conditions?: { type: string; status: string }[] };
}

export function finalObject(o: Listed): FinalObject {
  const meta = o.metadata ?? {};
  const token = meta.annotations?.[Annotations.attemptToken];
  const jobId = meta.labels?.[Labels.jobId];
  return {
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    owners: (meta.ownerReferences ?? []).map((r) => r.uid),
    deleting: meta.deletionTimestamp !== undefined,
    managed: meta.labels?.[Labels.managedBy] === LabelValues.managedBy,
    ...(typeof meta.creationTimestamp === 'string' ? { createdAt: Date.parse(meta.creationTimestamp) } : {}),
    ...(jobId ? { jobId } : {}),
    ...(token ? { token } : {}),
    ...(o.status?.conditions ? { conditions: o.status.conditions.filter((c) => c.status === 'True').map((c) => c.type) } : {}),
  };
}

/** The objects at `path` on the cluster `access` reaches (with a label selector), as the checker sees them. */
export async function listObjects(access: KubeAccess, path: string, selector?: string): Promise<FinalObject[]> {
  return ((await kubeCall(access, 'GET', `${path}${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ''}`)) as { items: Listed[] }).items.map(finalObject);
}

/** Reads the final state; Find is asked as dispatch asks it, with the run's CallBound. */
export async function readFinalState(stack: ChaosStack, lifecycles: readonly LifecycleRecord[], callBoundMs: number): Promise<FinalState> {
  const ns = stack.namespace;
  const list = (path: string, selector?: string) => listObjects(stack.admin, path, selector);
  const managed = `${Labels.managedBy}=${LabelValues.managedBy}`;
  const trainer = `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns}`;
  const readAt = Date.now();
  const [trainJobs, copies, workloads, jobSets, jobs, pods] = await Promise.all([
    list(`${trainer}/${Trainer.trainJobPlural}`),
    list(`${trainer}/${Trainer.trainingRuntimePlural}`, managed),
    list(`/apis/${Kueue.group}/v1beta2/namespaces/${ns}/${Kueue.workloadPlural}`),
    list(`/apis/jobset.x-k8s.io/v1alpha2/namespaces/${ns}/jobsets`),
    list(`/apis/batch/v1/namespaces/${ns}/jobs`),
    list(`/api/v1/namespaces/${ns}/pods`),
  ]);

  const running: FinalState['running'] = [];
  for (const config of Object.values(stack.configs)) {
    const query = `TaskQueue = '${config.temporal.taskQueue}' AND ExecutionStatus = 'Running'`;
    for await (const execution of stack.temporalClient.workflow.list({ query })) {
      running.push({ workflowId: execution.workflowId, type: execution.type });
    }
  }

  const finds: FinalState['finds'] = {};
  for (const lifecycle of lifecycles) {
    finds[lifecycle.plan.index] = await stack.clients[lifecycle.plan.mode]
      .find(lifecycle.jobId, lifecycle.submission, stack.kube, callBoundMs)
      .catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
  }
  return { trainJobs, copies, workloads, jobSets, jobs, pods, running, finds, readAt };
}
