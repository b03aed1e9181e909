// The sample runtimes under deploy/samples/, applied by dev:up and by the test run's setup:
// server-side apply, so applying twice is harmless and the real CRD schema validates them.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/model/kube.js';
import { Trainer } from '../../src/model/constants.js';
import { kubeCall, type KubeAccess } from './kube-access.js';
import { samplesDir } from './paths.js';

export const FIELD_MANAGER = 'dispatch-kubeflow-harness';

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
