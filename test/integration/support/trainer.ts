// Minimal Trainer objects for harness tests, and a typed handle on the custom-objects API.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { Trainer } from '../../../src/model/constants.js';
import type { KubeObject, TrainerRuntime } from '../../../src/model/kube.js';
import { readSamples } from '../../../dev/harness/samples.js';

/** A ClusterTrainingRuntime from deploy/samples/, by name. */
export async function sampleRuntime(name: string): Promise<TrainerRuntime> {
  const found = (await readSamples()).find((o) => o.metadata?.name === name);
  if (!found) throw new Error(`no sample runtime ${name} in deploy/samples`);
  return found as TrainerRuntime;
}

/** A namespaced TrainingRuntime with the spec of sample runtime `from`. */
export async function trainingRuntime(name: string, from = 'dispatch-kind'): Promise<TrainerRuntime> {
  const { spec } = await sampleRuntime(from);
  return { apiVersion: Trainer.apiVersion, kind: Trainer.trainingRuntimeKind, metadata: { name }, spec };
}

/** A suspended TrainJob on a ClusterTrainingRuntime, stating nothing it need not state. */
export function minimalTrainJob(name: string, runtime = 'dispatch-kind'): KubeObject {
  return {
    apiVersion: Trainer.apiVersion,
    kind: Trainer.trainJobKind,
    metadata: { name },
    spec: { runtimeRef: { apiGroup: Trainer.group, kind: Trainer.clusterTrainingRuntimeKind, name: runtime }, suspend: true },
  };
}

/** Namespaced Trainer objects of one plural through one client. */
export function trainerObjects(kc: KubeConfig, namespace: string, plural: string) {
  const api = kc.makeApiClient(CustomObjectsApi);
  const at = { group: Trainer.group, version: Trainer.version, namespace, plural };
  return {
    create: (body: KubeObject) => api.createNamespacedCustomObject({ ...at, body }) as Promise<KubeObject>,
    get: (name: string) => api.getNamespacedCustomObject({ ...at, name }) as Promise<KubeObject>,
    delete: (name: string, propagationPolicy = 'Background') => api.deleteNamespacedCustomObject({ ...at, name, propagationPolicy }),
    /** The object, or undefined when the server answers 404. */
    find: async (name: string): Promise<KubeObject | undefined> => {
      try {
        return (await api.getNamespacedCustomObject({ ...at, name })) as KubeObject;
      } catch (err) {
        if ((err as { code?: number }).code === 404) return undefined;
        throw err;
      }
    },
  };
}
