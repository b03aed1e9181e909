// Trainer runtimes that break (or bend) seed 001's rules, created on the real API server for one
// test file: cluster-scoped ones under unique names, deleted again in afterAll; namespaced ones in
// the test's namespace. Each starts as a copy of a sample runtime and is edited where it matters.
import type { KubeClients } from '../../../src/activities/kube-clients.js';
import { Trainer } from '../../../src/model/constants.js';
import type { RuntimeKind } from '../../../src/model/request.js';
import { uniqueName } from './kube.js';
import { sampleRuntime } from './trainer.js';

// A runtime spec is free-form JSON that the tests edit in place.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = { [key: string]: any };

/** The parts of a runtime an edit reaches for: the sample's one replicated job is the trainer job. */
export interface RuntimeDraft {
  /** The runtime's spec. */
  spec: Json;
  /** spec.template.spec: the JobSet. */
  jobSet: Json;
  /** The trainer replicated job (replicatedJobs[0]), as a whole. */
  replicatedJob: Json;
  /** Its Job spec (replicatedJobs[0].template.spec). */
  job: Json;
  /** Its pod spec (replicatedJobs[0].template.spec.template.spec). */
  pod: Json;
}

export type RuntimeEdit = (draft: RuntimeDraft) => void;

/** What a job names in its kubeflow/RuntimeRef. */
export interface RuntimeRef {
  kind: RuntimeKind;
  name: string;
}

/** "<Kind>/<name>", as the reasons name a runtime. */
export const keyOf = (ref: RuntimeRef) => `${ref.kind}/${ref.name}`;

async function editedSpec(from: string, edit: RuntimeEdit): Promise<Json> {
  const spec = structuredClone((await sampleRuntime(from)).spec) as Json;
  const replicatedJob = spec.template.spec.replicatedJobs[0];
  edit({ spec, jobSet: spec.template.spec, replicatedJob, job: replicatedJob.template.spec, pod: replicatedJob.template.spec.template.spec });
  return spec;
}

export interface RuntimeFixtures {
  /** A ClusterTrainingRuntime `<prefix>-<random>`: sample `from` (default dispatch-kind) with `edit` applied. */
  cluster(prefix: string, edit?: RuntimeEdit, from?: string): Promise<RuntimeRef>;
  /** A TrainingRuntime in `namespace`, made the same way. */
  namespaced(namespace: string, prefix: string, edit?: RuntimeEdit, from?: string): Promise<RuntimeRef>;
  /** Deletes the cluster-scoped runtimes (namespaced ones go with their namespace). */
  dispose(): Promise<void>;
}

export function runtimeFixtures(kube: KubeClients): RuntimeFixtures {
  const { group, version, apiVersion } = Trainer;
  const clusterScoped: string[] = [];
  return {
    async cluster(prefix, edit = () => {}, from = 'dispatch-kind') {
      const name = uniqueName(prefix);
      const body = { apiVersion, kind: Trainer.clusterTrainingRuntimeKind, metadata: { name }, spec: await editedSpec(from, edit) };
      await kube.custom.createClusterCustomObject({ group, version, plural: Trainer.clusterTrainingRuntimePlural, body });
      clusterScoped.push(name);
      return { kind: 'ClusterTrainingRuntime', name };
    },
    async namespaced(namespace, prefix, edit = () => {}, from = 'dispatch-kind') {
      const name = uniqueName(prefix);
      const body = { apiVersion, kind: Trainer.trainingRuntimeKind, metadata: { name }, spec: await editedSpec(from, edit) };
      await kube.custom.createNamespacedCustomObject({ group, version, namespace, plural: Trainer.trainingRuntimePlural, body });
      return { kind: 'TrainingRuntime', name };
    },
    async dispose() {
      await Promise.all(
        clusterScoped.map((name) =>
          kube.custom.deleteClusterCustomObject({ group, version, plural: Trainer.clusterTrainingRuntimePlural, name }).catch(() => undefined),
        ),
      );
    },
  };
}
