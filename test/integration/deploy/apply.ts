// deploy/kubernetes's objects on the test cluster: moved into a test's namespace (cluster-scoped
// ones renamed after it, so that test runs and files never share one), created as the admin, and
// the ServiceAccount's own credentials, as a Pod would have them.
import {
  AuthorizationV1Api,
  CoreV1Api,
  type V1ResourceAttributes,
} from '@kubernetes/client-node';
import { expect } from 'vitest';
import { kubeRequest, type KubeAccess } from '../../../dev/harness/kube-access.js';
import { kubeAccess, kubeConfig } from '../support/kube.js';
import type { Config } from '../../../src/model/config.js';
import { CLUSTER_SCOPED, collection, type KubeBody } from '../../support/placed-manifests.js';
import { deniedAccesses, describeAccess, neededAccesses, type Access } from '../../unit/deploy/rbac.js';

async function send(method: string, path: string, object: KubeBody, expected: number): Promise<void> {
  const answer = await kubeRequest(kubeAccess('admin'), method, path, object);
  if (answer.status !== expected)
    throw new Error(`${method} ${object.kind}/${object.metadata.name}: HTTP ${answer.status} ${answer.body}`);
}

export { placeIn, type KubeBody } from '../../support/placed-manifests.js';

/** Creates each object as the admin; with `dryRun`, the server validates (strictly) and stores nothing. */
export async function createAll(objects: KubeBody[], options: { dryRun?: boolean } = {}): Promise<void> {
  for (const object of objects) {
    const query = `fieldValidation=Strict${options.dryRun ? '&dryRun=All' : ''}`;
    await send('POST', `${collection(object)}?${query}`, object, 201);
  }
}

/**
 * Applies each object as the admin with a server-side apply in dry-run mode, as `kubectl apply
 * --server-side --dry-run=server` does: the server defaults, validates (strictly: an unknown field
 * fails) and admits it, and stores nothing.
 */
export async function applyDryRun(objects: KubeBody[], fieldManager: string): Promise<void> {
  for (const object of objects) {
    const query = `fieldManager=${fieldManager}&fieldValidation=Strict&dryRun=All&force=true`;
    const answer = await kubeRequest(kubeAccess('admin'), 'PATCH', `${collection(object)}/${object.metadata.name}?${query}`, object, {
      contentType: 'application/apply-patch+yaml',
    });
    if (answer.status !== 200 && answer.status !== 201)
      throw new Error(`server-side apply (dry run) of ${object.kind}/${object.metadata.name}: HTTP ${answer.status} ${answer.body}`);
  }
}

/** Replaces an object as the admin (RBAC objects allow an unconditional update). */
export async function replace(object: KubeBody): Promise<void> {
  await send('PUT', `${collection(object)}/${object.metadata.name}?fieldValidation=Strict`, object, 200);
}

/** Deletes the cluster-scoped objects; the namespaced ones go with their namespace. */
export async function deleteClusterScoped(objects: KubeBody[]): Promise<void> {
  for (const object of objects.filter((o) => CLUSTER_SCOPED.has(o.kind))) {
    await kubeRequest(kubeAccess('admin'), 'DELETE', `${collection(object)}/${object.metadata.name}`);
  }
}

export interface ServiceAccountIdentity {
  user: string;
  groups: string[];
  access: KubeAccess;
}

/** A token of the ServiceAccount from the TokenRequest API: the identity the worker's Pod has. */
export async function serviceAccountIdentity(
  namespace: string,
  name: string,
): Promise<ServiceAccountIdentity> {
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const user = `system:serviceaccount:${namespace}:${name}`;
  const admin = kubeAccess('admin');
  return {
    user,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    access: {
      server: admin.server,
      ...(admin.caPem ? { caPem: admin.caPem } : {}),
      token: request.status!.token,
      user,
      namespace,
    },
  };
}

/**
 * Waits until the authorizer answers `allowed` for the identity (a SubjectAccessReview, as the
 * admin): RBAC changes reach the authorizer through its informers, a moment after they are stored.
 */
export async function untilAuthorized(
  identity: ServiceAccountIdentity,
  attributes: { verb: string; group: string; resource: string; namespace?: string },
  allowed: boolean,
): Promise<void> {
  const authorization = kubeConfig().makeApiClient(AuthorizationV1Api);
  const review = async () =>
    (
      await authorization.createSubjectAccessReview({
        body: { spec: { user: identity.user, groups: identity.groups, resourceAttributes: attributes } },
      })
    ).status?.allowed ?? false;
  await expect.poll(review, { timeout: 10_000, interval: 100 }).toBe(allowed);
}

/**
 * What the authorizer answers the identity itself: a SelfSubjectAccessReview sent with its own
 * token, as the write gate asks (the identity may create one: `system:basic-user`).
 */
export async function reviewAsSelf(identity: ServiceAccountIdentity, attributes: V1ResourceAttributes): Promise<boolean> {
  const answer = await kubeRequest(identity.access, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: attributes },
  });
  if (answer.status !== 201) throw new Error(`SelfSubjectAccessReview as ${identity.user}: HTTP ${answer.status} ${answer.body}`);
  return (answer.json as { status?: { allowed?: boolean } }).status?.allowed ?? false;
}

/**
 * As the ServiceAccount itself: every access the worker's calls need with this configuration is
 * allowed, and each neighbour of them (another verb, subresource, name, or `otherNamespace`) is denied.
 */
export async function expectAccessesAsSelf(
  identity: ServiceAccountIdentity,
  config: Config,
  otherNamespace: string,
): Promise<void> {
  const answers = async (accesses: Access[]) =>
    Promise.all(accesses.map(async (a) => `${describeAccess(a)}: ${(await reviewAsSelf(identity, a)) ? 'allowed' : 'denied'}`));
  const needed = neededAccesses(config);
  expect(await answers(needed)).toEqual(needed.map((a) => `${describeAccess(a)}: allowed`));
  const denied = deniedAccesses(config, otherNamespace);
  expect(await answers(denied)).toEqual(denied.map((a) => `${describeAccess(a)}: denied`));
}
