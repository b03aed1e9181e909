// deploy/kubernetes's objects placed on a test cluster (the deploy tests, and the MultiKueue chaos
// run's worker identity): moved into a namespace, and the REST collection each is sent to. No
// vitest here: the chaos run (tsx) imports it too.
import type { V1ClusterRoleBinding, V1ObjectMeta, V1RoleBinding } from '@kubernetes/client-node';
import type { Manifest } from '../unit/deploy/manifests.js';

/** An object as sent to the API server: the manifest without its `source`. */
export interface KubeBody {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta & { name: string };
  [field: string]: unknown;
}

export const CLUSTER_SCOPED = new Set(['ClusterRole', 'ClusterRoleBinding']);

/**
 * The objects, moved into `namespace`: namespaced ones placed there, cluster-scoped ones named
 * `<name>-<namespace>`, and every reference between them (roleRef, ServiceAccount subjects) kept.
 */
export function placeIn(objects: Manifest[], namespace: string): KubeBody[] {
  const rename = (name: string) => `${name}-${namespace}`;
  return objects.map(({ source: _source, ...object }) => {
    const placed: KubeBody = structuredClone(object);
    if (CLUSTER_SCOPED.has(placed.kind)) placed.metadata.name = rename(placed.metadata.name);
    else placed.metadata.namespace = namespace;
    if (placed.kind === 'RoleBinding' || placed.kind === 'ClusterRoleBinding') {
      const binding = placed as unknown as V1RoleBinding | V1ClusterRoleBinding;
      if (binding.roleRef.kind === 'ClusterRole') binding.roleRef.name = rename(binding.roleRef.name);
      for (const subject of binding.subjects ?? [])
        if (subject.kind === 'ServiceAccount') subject.namespace = namespace;
    }
    return placed;
  });
}

/** The REST collection of an object's kind (every kind used here pluralises with an s, or y to ies). */
export function collection(object: KubeBody): string {
  const base = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  const plural = `${object.kind.toLowerCase().replace(/y$/, 'ie')}s`;
  return object.metadata.namespace
    ? `${base}/namespaces/${object.metadata.namespace}/${plural}`
    : `${base}/${plural}`;
}
