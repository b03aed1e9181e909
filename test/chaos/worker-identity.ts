// The MultiKueue chaos run reaches its worker cluster as a production deployment does: as the
// ServiceAccount of deploy/kubernetes/multikueue-worker-rbac.yaml, with that file's Role applied on
// the worker cluster as shipped (moved into the run's namespace), not as the cluster's admin. So a
// permission the shipped Role lacks (a call of step 5, the collector, the pod watch) fails the run,
// under faults too. The token comes from the TokenRequest API: the harness's controller-manager
// signs no long-lived token Secret (its token controller needs a key it is not given); the file's
// Secret is applied and stays empty.
import { join } from 'node:path';
import { kubeRequest, type KubeAccess } from '../../dev/harness/kube-access.js';
import { waitFor } from '../../dev/harness/process.js';
import { collection, placeIn } from '../support/placed-manifests.js';
import { KUBERNETES_DIR, readManifests } from '../unit/deploy/manifests.js';

export const WORKER_RBAC_FILE = join(KUBERNETES_DIR, 'multikueue-worker-rbac.yaml');

/** What the run's workers must be allowed on the worker cluster before the first Start (RBAC reaches the authorizer a moment after it is stored). */
const NEEDED = [
  { verb: 'create', group: 'trainer.kubeflow.org', resource: 'trainingruntimes' },
  { verb: 'list', group: 'trainer.kubeflow.org', resource: 'trainingruntimes' },
  { verb: 'watch', group: '', resource: 'pods' },
] as const;

/**
 * Applies the shipped worker-cluster RBAC in `namespace` as `admin`, and answers the access of its
 * ServiceAccount (a token valid for a day), once the authorizer allows it what the run needs.
 */
export async function workerClusterIdentity(admin: KubeAccess, namespace: string): Promise<KubeAccess> {
  const placed = placeIn(readManifests(WORKER_RBAC_FILE), namespace);
  for (const object of placed) {
    const answer = await kubeRequest(admin, 'POST', `${collection(object)}?fieldValidation=Strict`, object);
    if (answer.status !== 201) throw new Error(`${object.kind}/${object.metadata.name} on the worker cluster: HTTP ${answer.status} ${answer.body}`);
  }
  const account = placed.find((o) => o.kind === 'ServiceAccount');
  if (!account) throw new Error(`${WORKER_RBAC_FILE} has no ServiceAccount`);
  const name = account.metadata.name;
  const requested = await kubeRequest(admin, 'POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 86_400 },
  });
  if (requested.status !== 201) throw new Error(`a token of ServiceAccount ${namespace}/${name}: HTTP ${requested.status} ${requested.body}`);
  const access: KubeAccess = {
    server: admin.server,
    ...(admin.caPem ? { caPem: admin.caPem } : {}),
    token: (requested.json as { status: { token: string } }).status.token,
    user: `system:serviceaccount:${namespace}:${name}`,
    namespace,
  };
  for (const needed of NEEDED) {
    await waitFor(
      async () => {
        const review = await kubeRequest(access, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { namespace, ...needed } },
        });
        return (review.json as { status?: { allowed?: boolean } } | undefined)?.status?.allowed ? true : undefined;
      },
      { what: `${access.user} allowed to ${needed.verb} ${needed.resource} in ${namespace} on the worker cluster`, timeoutMs: 60_000, intervalMs: 200 },
    );
  }
  return access;
}
