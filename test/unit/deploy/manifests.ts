// The objects deploy/kubernetes's kustomizations build, read without a kustomize binary: the subset
// of kustomize they use (resources, namespace, configMapGenerator, images) and nothing more. A
// kustomization that uses anything else fails here instead of being read wrongly. Generated
// ConfigMaps keep their plain name (kustomize adds a content hash and rewrites the references).
import { readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import type { V1ConfigMap, V1Container, V1Deployment, V1ObjectMeta } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import { parseConfig } from '../../../src/config/load-config.js';
import type { Config } from '../../../src/model/config.js';

export const REPO = resolve(import.meta.dirname, '../../..');
export const KUBERNETES_DIR = join(REPO, 'deploy', 'kubernetes');
/** The two entry points: plain mode and Kueue mode. */
export const PLAIN = KUBERNETES_DIR;
export const KUEUE = join(KUBERNETES_DIR, 'kueue');

/** The generated ConfigMap holding the worker's configuration, and its one key. */
export const CONFIG_MAP = 'dispatch-kubeflow-config';
export const CONFIG_KEY = 'config.yaml';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta & { name: string };
  /** The file it came from, relative to the repository (for messages). */
  source: string;
  [field: string]: unknown;
}

const CLUSTER_SCOPED = new Set(['ClusterRole', 'ClusterRoleBinding', 'Namespace']);
const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'configMapGenerator', 'images']);

interface Kustomization {
  resources?: string[];
  namespace?: string;
  configMapGenerator?: { name: string; files: string[]; behavior?: 'create' | 'replace' | 'merge' }[];
  images?: { name: string; newName?: string; newTag?: string }[];
}

/** Every object of a manifest file (a multi-document YAML). */
export function readManifests(file: string): Manifest[] {
  const source = relative(REPO, file);
  return parseAllDocuments(readFileSync(file, 'utf8')).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors[0]!.message}`);
    const object = doc.toJS() as Manifest | null;
    if (object === null) return [];
    if (!object.apiVersion || !object.kind || !object.metadata?.name)
      throw new Error(`${source}: an object without apiVersion, kind or metadata.name`);
    return [{ ...object, source }];
  });
}

/** The objects `kubectl kustomize <dir>` builds (see the header for what is supported). */
export function kustomize(dir: string): Manifest[] {
  const file = join(dir, 'kustomization.yaml');
  const k = parse(readFileSync(file, 'utf8')) as Kustomization & Record<string, unknown>;
  const unsupported = Object.keys(k).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0)
    throw new Error(`${relative(REPO, file)}: ${unsupported.join(', ')} not understood by this reader`);

  const objects: Manifest[] = [];
  for (const resource of k.resources ?? []) {
    const path = resolve(dir, resource);
    objects.push(...(statSync(path).isDirectory() ? kustomize(path) : readManifests(path)));
  }
  for (const generator of k.configMapGenerator ?? []) {
    const data = Object.fromEntries(
      generator.files.map((f) => [basename(f), readFileSync(resolve(dir, f), 'utf8')]),
    );
    const existing = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === generator.name) as
      (Manifest & V1ConfigMap) | undefined;
    const behavior = generator.behavior ?? 'create';
    if ((behavior === 'create') !== (existing === undefined)) {
      throw new Error(
        `${relative(REPO, file)}: configMapGenerator ${generator.name} with behavior ${behavior}, but it ${existing ? 'exists' : 'does not exist'}`,
      );
    }
    if (existing) existing.data = behavior === 'replace' ? data : { ...existing.data, ...data };
    else
      objects.push({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: generator.name },
        data,
        source: relative(REPO, file),
      });
  }
  if (k.namespace)
    for (const o of objects) if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
  for (const image of k.images ?? []) {
    for (const container of containersOf(objects)) {
      if (imageName(container.image ?? '') === image.name)
        container.image = `${image.newName ?? image.name}:${image.newTag ?? 'latest'}`;
    }
  }
  return objects;
}

/** An image reference without its tag or digest. */
export function imageName(image: string): string {
  const withoutDigest = image.split('@')[0]!;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}

function containersOf(objects: Manifest[]): V1Container[] {
  return objects
    .filter((o) => o.kind === 'Deployment')
    .flatMap((o) => {
      const pod = (o as unknown as V1Deployment).spec?.template.spec;
      return [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
    });
}

/** The one object of a kind and (when given) name; fails naming what is there instead. */
export function one<T>(objects: Manifest[], kind: string, name?: string): Manifest & T {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) {
    throw new Error(
      `expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`,
    );
  }
  return found[0] as Manifest & T;
}

/** Every object of a kind. */
export function all<T>(objects: Manifest[], kind: string): (Manifest & T)[] {
  return objects.filter((o) => o.kind === kind) as (Manifest & T)[];
}

/** The worker's configuration as the ConfigMap carries it, through the product's own config schema. */
export function configOf(objects: Manifest[]): Config {
  const map = one<V1ConfigMap>(objects, 'ConfigMap', CONFIG_MAP);
  const text = map.data?.[CONFIG_KEY];
  if (text === undefined) throw new Error(`ConfigMap ${CONFIG_MAP} has no ${CONFIG_KEY}`);
  return parseConfig(parse(text), `${map.source} (${CONFIG_KEY})`);
}
