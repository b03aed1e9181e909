// Trainer runtimes that break (or bend) the runtime rules (docs/runtime-rules.md), created on the real API server for one
// test file: cluster-scoped ones under unique names, deleted again in afterAll; namespaced ones in
// the test's namespace. Each starts as a copy of a sample runtime and is edited where it matters.
import type { KubeClients } from '../../../src/kube/clients.js';
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

/**
 * Trainer's own opt-out of its runtime validators (the objectSelector of its webhook manifests). A
 * runtime that breaks dispatch's rules may break Trainer's too (no container named for the trainer
 * ancestor, say); a cluster can still hold one (made with this label, or before the webhook ran),
 * and dispatch must refuse it with its own reasons. So a runtime Trainer denies is made again with
 * the label; one it accepts is made without it and stays judged by Trainer.
 */
export const TRAINER_VALIDATION_OPT_OUT = { 'trainer.kubeflow.org/webhook-validation': 'disabled' } as const;

const deniedByWebhook = (error: unknown) =>
  (error as { code?: number }).code === 403 && String((error as { body?: unknown }).body).includes('admission webhook');

async function createPastTrainerValidation(create: (body: Json) => Promise<unknown>, body: Json): Promise<void> {
  try {
    await create(body);
  } catch (error) {
    if (!deniedByWebhook(error)) throw error;
    await create({ ...body, metadata: { ...body.metadata, labels: { ...TRAINER_VALIDATION_OPT_OUT } } });
  }
}

export function runtimeFixtures(kube: KubeClients): RuntimeFixtures {
  const { group, version, apiVersion } = Trainer;
  const clusterScoped: string[] = [];
  return {
    async cluster(prefix, edit = () => {}, from = 'dispatch-kind') {
      const name = uniqueName(prefix);
      const body = { apiVersion, kind: Trainer.clusterTrainingRuntimeKind, metadata: { name }, spec: await editedSpec(from, edit) };
      await createPastTrainerValidation((b) => kube.custom.createClusterCustomObject({ group, version, plural: Trainer.clusterTrainingRuntimePlural, body: b }), body);
      clusterScoped.push(name);
      return { kind: 'ClusterTrainingRuntime', name };
    },
    async namespaced(namespace, prefix, edit = () => {}, from = 'dispatch-kind') {
      const name = uniqueName(prefix);
      const body = { apiVersion, kind: Trainer.trainingRuntimeKind, metadata: { name }, spec: await editedSpec(from, edit) };
      await createPastTrainerValidation(
        (b) => kube.custom.createNamespacedCustomObject({ group, version, namespace, plural: Trainer.trainingRuntimePlural, body: b }),
        body,
      );
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
