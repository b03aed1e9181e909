// The sample runtimes under deploy/samples/, applied by dev:up and by the test run's setup:
// server-side apply, so applying twice is harmless and the real CRD schema validates them.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/model/kube.js';
import { Kueue, Trainer } from '../../src/model/constants.js';
import { kubeCall, type KubeAccess } from './kube-access.js';
import { samplesDir } from './paths.js';

export const FIELD_MANAGER = 'dispatch-kubeflow-harness';

/** The Kueue samples: cluster-wide queue objects, and the LocalQueue each namespace needs. */
export const kueueSamplesDir = join(samplesDir, 'kueue');
/** The AdmissionCheck, LocalQueue and ClusterQueue names of the Kueue samples. */
export const KUEUE_SAMPLE_CHECK = 'dispatch';
export const KUEUE_SAMPLE_QUEUE = 'user-queue';
export const KUEUE_SAMPLE_CLUSTER_QUEUE = 'dispatch';

/** Every object in the YAML files of `dir`, in file order. */
export async function readSamples(dir = samplesDir): Promise<KubeObject[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  const objects: KubeObject[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      const obj = doc.toJS() as KubeObject | null;
      if (obj) objects.push(obj);
    }
  }
  return objects;
}

/** The API path of a Trainer object (the samples hold nothing else). */
export function trainerObjectPath(obj: KubeObject, namespace?: string): string {
  const plural: Record<string, string> = {
    [Trainer.clusterTrainingRuntimeKind]: Trainer.clusterTrainingRuntimePlural,
    [Trainer.trainingRuntimeKind]: Trainer.trainingRuntimePlural,
    [Trainer.trainJobKind]: Trainer.trainJobPlural,
  };
  const resource = plural[obj.kind ?? ''];
  const name = obj.metadata?.name;
  if (!resource || !name) throw new Error(`not a named Trainer object: ${obj.kind ?? '(no kind)'} ${name ?? '(no name)'}`);
  const scope = obj.kind === Trainer.clusterTrainingRuntimeKind ? '' : `/namespaces/${obj.metadata?.namespace ?? namespace}`;
  return `/apis/${Trainer.apiVersion}${scope}/${resource}/${name}`;
}

/** Kueue's kinds in the samples: plural, and whether namespaced. */
const KUEUE_KINDS: Record<string, { plural: string; namespaced: boolean }> = {
  ResourceFlavor: { plural: 'resourceflavors', namespaced: false },
  AdmissionCheck: { plural: 'admissionchecks', namespaced: false },
  ClusterQueue: { plural: 'clusterqueues', namespaced: false },
  LocalQueue: { plural: 'localqueues', namespaced: true },
};

/** The API path of a Kueue sample object (apiVersion as written). */
export function kueueObjectPath(obj: KubeObject, namespace?: string): string {
  const kind = KUEUE_KINDS[obj.kind ?? ''];
  const name = obj.metadata?.name;
  if (!kind || !name || !obj.apiVersion) throw new Error(`not a named Kueue object: ${obj.kind ?? '(no kind)'} ${name ?? '(no name)'}`);
  const scope = kind.namespaced ? `/namespaces/${obj.metadata?.namespace ?? namespace}` : '';
  return `/apis/${obj.apiVersion}${scope}/${kind.plural}/${name}`;
}

/**
 * Applies the Kueue samples: the flavor, dispatch's AdmissionCheck and the ClusterQueue, and a
 * LocalQueue in each namespace given. Returns "<Kind>/<name>" of each.
 */
export async function applyKueueSamples(admin: KubeAccess, namespaces: string[]): Promise<string[]> {
  const query = `fieldManager=${FIELD_MANAGER}&force=true&fieldValidation=Strict`;
  const apply = (obj: KubeObject, namespace?: string) =>
    kubeCall(admin, 'PATCH', `${kueueObjectPath(obj, namespace)}?${query}`, obj, { contentType: 'application/apply-patch+yaml' });
  const all = await readSamples(kueueSamplesDir);
  const clusterWide = all.filter((o) => !KUEUE_KINDS[o.kind ?? '']?.namespaced);
  const perNamespace = all.filter((o) => KUEUE_KINDS[o.kind ?? '']?.namespaced);
  for (const obj of clusterWide) await apply(obj);
  for (const namespace of namespaces) for (const obj of perNamespace) await apply(obj, namespace);
  return [...clusterWide, ...perNamespace].map((o) => `${o.kind}/${o.metadata?.name}`);
}

/**
 * Sets an AdmissionCheck's condition Active: True, as its controller would: a ClusterQueue that
 * lists an AdmissionCheck stays inactive (admits nothing) while the check is not Active. Only
 * dev:up's stack does this, since no dispatch worker runs there; a Kueue-mode worker's admission
 * check controller keeps it Active (docs/contract.md §9).
 */
export async function activateAdmissionCheck(admin: KubeAccess, name: string, apiVersion = `${Kueue.group}/v1beta2`): Promise<void> {
  const status = {
    apiVersion,
    kind: 'AdmissionCheck',
    metadata: { name },
    status: {
      conditions: [
        { type: 'Active', status: 'True', reason: 'Ready', message: 'set by the dispatch-kubeflow harness', lastTransitionTime: new Date().toISOString(), observedGeneration: 1 },
      ],
    },
  };
  await kubeCall(admin, 'PATCH', `/apis/${apiVersion}/admissionchecks/${name}/status?fieldManager=${FIELD_MANAGER}&force=true`, status, {
    contentType: 'application/apply-patch+yaml',
  });
}

/**
 * Applies the samples (strict field validation: an unknown field is an error, not dropped) and
 * returns "<Kind>/<name>" of each.
 */
export async function applySamples(admin: KubeAccess, options: { dir?: string; dryRun?: boolean } = {}): Promise<string[]> {
  const objects = await readSamples(options.dir);
  const query = `fieldManager=${FIELD_MANAGER}&force=true&fieldValidation=Strict${options.dryRun ? '&dryRun=All' : ''}`;
  for (const obj of objects) {
    await kubeCall(admin, 'PATCH', `${trainerObjectPath(obj, admin.namespace)}?${query}`, obj, {
      contentType: 'application/apply-patch+yaml',
    });
  }
  return objects.map((o) => `${o.kind}/${o.metadata?.name}`);
}
