// What the tests of the operations after Start share: a ref from a StartResult, the TrainJob as the
// API server holds it, the objects a TrainJob makes (JobSet, Jobs, pods), and runtimes whose pods
// KWOK runs for a while or fails with an exit code.
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { KubeClients } from '../../../src/kube/clients.js';
import { Labels, Trainer } from '../../../src/model/constants.js';
import type { TrainJob } from '../../../src/model/kube.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import type { StartResult } from '../../../src/model/results.js';
import { kubeConfig } from '../support/kube.js';
import type { RuntimeEdit } from '../support/runtimes.js';

export const refOf = (started: StartResult): TrainJobRef => ({ namespace: started.namespace, name: started.name, uid: started.uid });

/** The TrainJob as the API server holds it, or undefined when it is gone. */
export async function readTrainJob(kube: KubeClients, ref: TrainJobRef): Promise<TrainJob | undefined> {
  try {
    return (await kube.custom.getNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      plural: Trainer.trainJobPlural,
      namespace: ref.namespace,
      name: ref.name,
    })) as TrainJob;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

/** The names of what the TrainJob's controllers made: the JobSet, its Jobs and their pods (by the job-id label). */
export async function childrenOf(ref: TrainJobRef, jobIdLabel: string) {
  const kc = kubeConfig();
  const jobSets = (await kc
    .makeApiClient((await import('@kubernetes/client-node')).CustomObjectsApi)
    .listNamespacedCustomObject({ group: 'jobset.x-k8s.io', version: 'v1alpha2', namespace: ref.namespace, plural: 'jobsets' })) as {
    items: { metadata: { name: string } }[];
  };
  const jobs = await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: ref.namespace });
  const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: ref.namespace, labelSelector: `${Labels.jobId}=${jobIdLabel}` });
  return {
    jobSets: jobSets.items.map((j) => j.metadata.name).filter((n) => n === ref.name),
    jobs: (jobs.items ?? []).map((j) => j.metadata?.name ?? '').filter((n) => n.startsWith(`${ref.name}-`)),
    pods: pods.items.map((p) => ({ name: p.metadata?.name ?? '', phase: p.status?.phase ?? '', deleting: Boolean(p.metadata?.deletionTimestamp) })),
  };
}

export { runFor } from '../support/run-for.js';

/** The label and annotations of KWOK's chaos stage: the `node` container fails with this exit code. */
export const failWith =
  (exitCode: number): RuntimeEdit =>
  ({ job }) => {
    const stage = 'pod-container-running-failed.stage.kwok.x-k8s.io';
    job.template.metadata = {
      labels: { [stage]: 'true' },
      annotations: { [`${stage}/exit-code`]: String(exitCode), [`${stage}/container-name`]: 'node', [`${stage}/reason`]: 'Error' },
    };
  };
