// Kubernetes clients for integration tests, and per-test namespaces: tests share one cluster and
// isolate themselves by namespace.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubeConfig, type V1PolicyRule } from '@kubernetes/client-node';
import { adminAccess, restrictedAccess, type ClusterInfo } from '../../../dev/harness/cluster.js';
import { Identities } from '../../../dev/harness/credentials.js';
import { kubeConfigFor, type KubeAccess } from '../../../dev/harness/kube-access.js';
import { applyKueueSamples } from '../../../dev/harness/samples.js';
import { stackInfo } from './context.js';

export type Identity = 'admin' | 'restricted';

/** The bearer-token access of an identity (for the fault proxy or raw calls). */
export function kubeAccess(identity: Identity = 'admin', namespace?: string): KubeAccess {
  const info = stackInfo().kube;
  const access = identity === 'admin' ? adminAccess(info) : restrictedAccess(info);
  return namespace ? { ...access, namespace } : access;
}

/** A @kubernetes/client-node KubeConfig for the admin (system:masters) or the restricted identity. */
export function kubeConfig(identity: Identity = 'admin', namespace?: string): KubeConfig {
  return kubeConfigFor(kubeAccess(identity, namespace));
}

/** A name no other test of this run uses: `<prefix>-<8 hex digits>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export interface TestNamespace {
  name: string;
  /** Deletes the namespace; the namespace controller then deletes everything in it. */
  dispose(): Promise<void>;
}

/**
 * Creates a fresh namespace `<prefix>-<random>` (prefix: a DNS label of at most 54 characters), on
 * the run's shared cluster or on `cluster`.
 */
export async function freshNamespace(prefix: string, cluster?: ClusterInfo): Promise<TestNamespace> {
  const core = (cluster ? kubeConfigFor(adminAccess(cluster)) : kubeConfig()).makeApiClient(CoreV1Api);
  const name = uniqueName(prefix);
  await core.createNamespace({ body: { metadata: { name, labels: { 'dispatch-kubeflow/test': 'true' } } } });
  return {
    name,
    dispose: async () => {
      await core.deleteNamespace({ name }).catch(() => undefined);
    },
  };
}

/**
 * Grants the restricted identity `rules` in one namespace (a Role and a RoleBinding named
 * `name`). Beyond this it may only read Trainer objects cluster-wide.
 */
export async function grantRestricted(namespace: string, name: string, rules: V1PolicyRule[]): Promise<void> {
  const rbac = kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: Identities.restricted.user }],
    },
  });
}

/** A fresh namespace with the sample LocalQueue (`user-queue`), for Kueue-mode Starts on the real Kueue. */
export async function freshKueueNamespace(prefix: string): Promise<TestNamespace> {
  const ns = await freshNamespace(prefix);
  await applyKueueSamples(kubeAccess(), [ns.name]);
  return ns;
}

/** Deletes a LocalQueue: the real Kueue's Workloads of that queue then list no admission check. */
export async function deleteLocalQueue(namespace: string, name: string): Promise<void> {
  await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .deleteNamespacedCustomObject({ group: 'kueue.x-k8s.io', version: 'v1beta2', namespace, plural: 'localqueues', name });
}
