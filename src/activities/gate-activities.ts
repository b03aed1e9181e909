// The reach and write gates of the preflight (docs/contract.md §8). The start gate is a probe Start,
// which the ProbeBackend workflow runs through the same steps as any Start.
import type { V1SelfSubjectAccessReview } from '@kubernetes/client-node';
import { Trainer } from '../model/constants.js';
import { callContext, type ActivityEnv } from './context.js';
import { describeRefusal, kubeCall } from '../kube/call.js';

interface AccessCheck {
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

export function gateActivities(env: ActivityEnv) {
  return {
    /** reach: the API answers. Unanswered is retried by Temporal until CallBound. */
    async checkReach(): Promise<{ version: string }> {
      const answer = await kubeCall('get /version', callContext(env), (o) => env.kube.version.getCode(o));
      // Any HTTP answer proves reach, even a refusal.
      return { version: answer.answered === 'ok' ? answer.value.gitVersion : `(answered ${answer.status})` };
    },

    /** write: SelfSubjectAccessReview for every permission Start and its undo need. */
    async checkWrite(input: { namespace: string }): Promise<{ reasons: string[] }> {
      const reasons: string[] = [];
      for (const check of writeGateChecks(input.namespace)) {
        const review: V1SelfSubjectAccessReview = {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { group: Trainer.group, ...check } },
        };
        const where = check.namespace ? `${check.resource} in namespace ${check.namespace}` : check.resource;
        const answer = await kubeCall(`review ${check.verb} ${where}`, callContext(env), (o) =>
          env.kube.authorization.createSelfSubjectAccessReview({ body: review }, o),
        );
        if (answer.answered === 'definite') reasons.push(`write: could not review ${check.verb} on ${where}: ${describeRefusal(answer)}`);
        else if (!answer.value.status?.allowed) reasons.push(`write: not allowed to ${check.verb} ${where}`);
      }
      return { reasons };
    },
  };
}
