// docs/contract.md §6 (amended 2026-11-30): which failure a definite refusal is. An admission webhook's
// denial is ErrRejected whatever its status (controller-runtime's webhooks deny with 403), as are 400
// and 422 Invalid; only RBAC's 403 is ErrReadOnly. The messages are the API server's wording
// (k8s.io/apiserver v0.36: responsewriters.ForbiddenStatusError, webhook errors.ToStatusErr).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyRefusal, isWebhookDenial, refusalType } from '../../../../src/core/objects/refusal-type.js';

const USER = 'system:serviceaccount:dispatch:dispatch-kubeflow';
const RBAC_CREATE_TRAINJOB = `trainjobs.trainer.kubeflow.org is forbidden: User "${USER}" cannot create resource "trainjobs" in API group "trainer.kubeflow.org" in the namespace "ml-jobs"`;
const TRAINER_DENIAL =
  'admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: spec.runtimePatches: Invalid value: ' +
  '[{"manager":"dispatch.phpboyscout.uk/dispatch"}]: must not have envs for the dataset-initializer, model-initializer, node containers';

describe('refusalType: real-looking refusals', () => {
  it.each([
    ['RBAC: create a TrainJob, namespaced', 403, RBAC_CREATE_TRAINJOB, 'ErrReadOnly'],
    [
      'RBAC: get a named ClusterTrainingRuntime, cluster scope',
      403,
      `clustertrainingruntimes.trainer.kubeflow.org "torch-distributed" is forbidden: User "${USER}" cannot get resource "clustertrainingruntimes" in API group "trainer.kubeflow.org" at the cluster scope`,
      'ErrReadOnly',
    ],
    [
      'RBAC, with the authorizer reason appended',
      403,
      `trainingruntimes.trainer.kubeflow.org is forbidden: User "${USER}" cannot create resource "trainingruntimes" in API group "trainer.kubeflow.org" in the namespace "ml-jobs": RBAC: role.rbac.authorization.k8s.io "dispatch" not found`,
      'ErrReadOnly',
    ],
    [
      'RBAC, anonymous, a non-resource path',
      403,
      'forbidden: User "system:anonymous" cannot get path "/apis"',
      'ErrReadOnly',
    ],
    ["Trainer's TrainJob webhook denial", 403, TRAINER_DENIAL, 'ErrRejected'],
    [
      "Kueue's webhook denial",
      403,
      'admission webhook "vtrainjob.kb.io" denied the request: metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "Q": a lowercase RFC 1123 subdomain must consist of ...',
      'ErrRejected',
    ],
    [
      'a webhook denial without explanation',
      403,
      'admission webhook "deny.example.com" denied the request without explanation',
      'ErrRejected',
    ],
    [
      'a webhook denial quoting an RBAC refusal',
      403,
      `admission webhook "policy.example.com" denied the request: ${RBAC_CREATE_TRAINJOB}`,
      'ErrRejected',
    ],
    [
      'a webhook denial with 400',
      400,
      'admission webhook "x.example.com" denied the request: bad',
      'ErrRejected',
    ],
    [
      'a webhook denial with 422',
      422,
      'admission webhook "x.example.com" denied the request: spec.trainer.numNodes: Invalid value: 0',
      'ErrRejected',
    ],
    [
      '422 Invalid from the CRD schema',
      422,
      'TrainJob.trainer.kubeflow.org "dj-x-s1" is invalid: spec.trainer.env: Too many: 129: must have at most 128 items',
      'ErrRejected',
    ],
    ['400 BadRequest', 400, 'the body of the request was in an unknown format', 'ErrRejected'],
    [
      'a namespace being terminated',
      403,
      'trainjobs.trainer.kubeflow.org "dj-x-s1" is forbidden: unable to create new content in namespace ml-jobs because it is being terminated',
      'ErrRejected',
    ],
    [
      'an exceeded quota',
      403,
      'trainjobs.trainer.kubeflow.org "dj-x-s1" is forbidden: exceeded quota: object-counts, requested: count/trainjobs.trainer.kubeflow.org=1, used: count/trainjobs.trainer.kubeflow.org=10, limited: count/trainjobs.trainer.kubeflow.org=10',
      'ErrRejected',
    ],
    [
      'a ValidatingAdmissionPolicy denial',
      403,
      "trainjobs.trainer.kubeflow.org \"dj-x-s1\" is forbidden: ValidatingAdmissionPolicy 'no-gpus' with binding 'no-gpus' denied request: GPUs are not allowed",
      'ErrRejected',
    ],
    ['a 403 with no Status message', 403, '', 'ErrRejected'],
    ['404 NotFound', 404, 'trainjobs.trainer.kubeflow.org "dj-x-s1" not found', 'ErrRejected'],
    ['401 Unauthorized', 401, 'Unauthorized', 'ErrRejected'],
  ] as const)('%s (HTTP %i)', (_what, status, message, type) => {
    expect(refusalType({ status, message })).toBe(type);
  });

  it('isWebhookDenial recognises the API server wording only', () => {
    expect(isWebhookDenial({ status: 403, message: TRAINER_DENIAL })).toBe(true);
    expect(isWebhookDenial({ status: 403, message: RBAC_CREATE_TRAINJOB })).toBe(false);
  });
});

describe('refusalType: properties', () => {
  const name = fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/);
  const user = fc.string({ maxLength: 30 }).map((u) => JSON.stringify(u));
  const rbac = fc
    .tuple(
      name,
      user,
      fc.constantFrom('create', 'get', 'patch', 'delete'),
      name,
      fc.option(name, { nil: undefined }),
    )
    .map(
      ([resource, u, verb, ns, objectName]) =>
        `${resource}${objectName ? ` "${objectName}"` : ''} is forbidden: User ${u} cannot ${verb} resource "${resource}" in API group "trainer.kubeflow.org" in the namespace "${ns}"`,
    );
  const denial = fc
    .tuple(name, fc.string({ maxLength: 60 }))
    .map(([hook, why]) => `admission webhook "${hook}" denied the request: ${why}`);

  it("RBAC's 403, for any user, verb, resource and namespace, is ErrReadOnly", () => {
    fc.assert(
      fc.property(rbac, (message) => {
        expect(refusalType({ status: 403, message })).toBe('ErrReadOnly');
      }),
    );
  });

  it('a webhook denial is ErrRejected whatever its status and whatever it quotes', () => {
    fc.assert(
      fc.property(
        denial,
        fc.integer({ min: 400, max: 499 }),
        fc.option(rbac, { nil: '' }),
        (message, status, quoted) => {
          expect(refusalType({ status, message: `${message}${quoted}` })).toBe('ErrRejected');
        },
      ),
    );
  });

  it('any status other than 403 is ErrRejected, whatever the message', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 400, max: 499 }).filter((s) => s !== 403),
        fc.oneof(rbac, denial, fc.string()),
        (status, message) => {
          expect(refusalType({ status, message })).toBe('ErrRejected');
        },
      ),
    );
  });
});

describe('classifyRefusal', () => {
  const WHAT = 'creating TrainJob ml-jobs/dj-x-s1';
  /** classifyRefusal of a 403 with `message`, described as describeRefusal would. */
  const classify403 = (message: string) =>
    classifyRefusal(WHAT, { status: 403, message }, `HTTP 403 Forbidden: ${message}`);

  it('RBAC: ErrReadOnly, "<what> is forbidden (<detail>)"', () => {
    expect(classify403(RBAC_CREATE_TRAINJOB)).toEqual({
      type: 'ErrReadOnly',
      reason: `${WHAT} is forbidden (HTTP 403 Forbidden: ${RBAC_CREATE_TRAINJOB})`,
    });
  });

  it('a webhook denial: ErrRejected, "<what>: <detail>"', () => {
    expect(classify403(TRAINER_DENIAL)).toEqual({
      type: 'ErrRejected',
      reason: `${WHAT}: HTTP 403 Forbidden: ${TRAINER_DENIAL}`,
    });
  });
});
