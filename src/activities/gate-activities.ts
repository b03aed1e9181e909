// The reach and write gates of the preflight (docs/contract.md §8). The start gate is a probe Start,
// which the ProbeBackend workflow runs through the same steps as any Start.
import type { V1SelfSubjectAccessReview } from '@kubernetes/client-node';
import { Trainer } from '../model/constants.js';
import { DispatchError } from '../model/errors.js';
import type { KubeClients } from '../kube/clients.js';
import { callContext, type ActivityEnv } from './context.js';
import { describeRefusal, kubeCall, KubeUnanswered } from '../kube/call.js';

/**
 * A worker cluster's review may take this share of the request bound: one that does not answer is
 * known before the activity's own bound (timeouts.call), so the gate's reason can name it.
 */
const WORKER_CLUSTER_REVIEW_SHARE = 3;

export interface AccessCheck {
  verb: string;
  resource: string;
  namespace?: string;
}

/** What the write gate asks: create/get/patch/delete on both kinds Start writes, get on the runtimes it reads. */
export function writeGateChecks(namespace: string): AccessCheck[] {
  const writes = ['create', 'get', 'patch', 'delete'].flatMap((verb) =>
    [Trainer.trainJobPlural, Trainer.trainingRuntimePlural].map((resource) => ({ verb, resource, namespace })),
  );
  return [...writes, { verb: 'get', resource: Trainer.clusterTrainingRuntimePlural }];
}

/**
 * What the write gate asks of each MultiKueue worker cluster, with that cluster's own identity
 * (docs/multikueue.md, "Worker clusters: what the product needs there"): step 5's runtime copy
 * (create; get, to adopt a copy whose answer was lost; delete, its undo) and the collector's list.
 * Without get or list a Start would still run, but §7's adoption or §11's "no copy is left on any
 * cluster" could not be kept, so they gate Starts as the manager's permissions do.
 */
export function workerClusterGateChecks(namespace: string): AccessCheck[] {
  return ['create', 'get', 'delete', 'list'].map((verb) => ({ verb, resource: Trainer.trainingRuntimePlural, namespace }));
}

/**
 * One SelfSubjectAccessReview on `kube`: nothing when allowed, else the reason (denied, or the review
 * refused). Unanswered throws, naming `where`: the workflow leaves the write gate unknown.
 */
async function reviewOf(env: ActivityEnv, kube: KubeClients, check: AccessCheck, on: string): Promise<string | undefined> {
  const review: V1SelfSubjectAccessReview = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { group: Trainer.group, ...check } },
  };
  const where = check.namespace ? `${check.resource} in namespace ${check.namespace}` : check.resource;
  const answer = await kubeCall(`${on}review ${check.verb} ${where}`, callContext(env), (o) => kube.authorization.createSelfSubjectAccessReview({ body: review }, o));
  if (answer.answered === 'definite') return `write: ${on}could not review ${check.verb} on ${where}: ${describeRefusal(answer)}`;
  return answer.value.status?.allowed ? undefined : `write: ${on}not allowed to ${check.verb} ${where}`;
}

/**
 * The write gate's reviews on one worker cluster: the reasons of its denials, or, at its first
 * review left unanswered, what went unanswered (the rest are not asked).
 */
async function reviewWorkerCluster(env: ActivityEnv, name: string, kube: KubeClients, namespace: string): Promise<{ reasons: string[]; unanswered?: string }> {
  const bounded = { ...env, requestTimeoutMs: Math.max(1, Math.floor(env.requestTimeoutMs / WORKER_CLUSTER_REVIEW_SHARE)) };
  const reasons: string[] = [];
  for (const check of workerClusterGateChecks(namespace)) {
    try {
      const reason = await reviewOf(bounded, kube, check, `worker cluster ${name}: `);
      if (reason) reasons.push(reason);
    } catch (error) {
      if (error instanceof KubeUnanswered) return { reasons, unanswered: error.message };
      throw error;
    }
  }
  return { reasons };
}

export function gateActivities(env: ActivityEnv) {
  return {
    /** reach: the API answers. Unanswered is retried by Temporal until CallBound. */
    async checkReach(): Promise<{ version: string }> {
      const answer = await kubeCall('get /version', callContext(env), (o) => env.kube.version.getCode(o));
      // Any HTTP answer proves reach, even a refusal.
      return { version: answer.answered === 'ok' ? answer.value.gitVersion : `(answered ${answer.status})` };
    },

    /**
     * write: SelfSubjectAccessReview for every permission Start and its undo need, on the manager
     * and, with kueue.multiKueue, on every worker cluster this worker has clients for (its reasons
     * name the cluster), side by side and each review within a third of the request bound. A worker
     * cluster that does not answer leaves the gate unknown, as the manager's silence does (a Start
     * would fail at step 5 there anyway: ErrUnreachable, §11), unless a denial decides it.
     */
    async checkWrite(input: { namespace: string }): Promise<{ reasons: string[] }> {
      const reasons: string[] = [];
      for (const check of writeGateChecks(input.namespace)) {
        const reason = await reviewOf(env, env.kube, check, '');
        if (reason) reasons.push(reason);
      }
      const clusters = [...(env.workerClusters ?? new Map<string, KubeClients>())];
      const reviewed = await Promise.all(clusters.map(([name, kube]) => reviewWorkerCluster(env, name, kube, input.namespace)));
      const unanswered = reviewed.flatMap((r) => (r.unanswered === undefined ? [] : [r.unanswered]));
      reasons.push(...reviewed.flatMap((r) => r.reasons));
      // A denial anywhere is definite and decides the gate, whatever else went unanswered (§8a).
      if (reasons.length > 0) return { reasons: [...reasons, ...unanswered.map((u) => `write: ${u}`)] };
      // Only silence: the gate is unknown, with the cluster named (a typed failure, not retried: the
      // preflight runs again after 1 s while a gate is unknown).
      if (unanswered.length > 0) throw new DispatchError('ErrUnreachable', unanswered, 1, undefined, { definite: false });
      return { reasons };
    },
  };
}
