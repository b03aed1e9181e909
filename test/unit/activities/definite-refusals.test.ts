// Steps 2, 5 and 6 type a definite refusal by one rule (src/core/objects/refusal-type.ts, docs/contract.md §6):
// RBAC's 403 is ErrReadOnly; an admission webhook's denial (a 403 too) is ErrRejected, like any
// other refusal. The activities, as createActivities builds them (so a refusal arrives as the
// ApplicationFailure the workflows read), run in a mock activity context against a fake API.
import { ApiException } from '@kubernetes/client-node';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { KubeClients } from '../../../src/kube/clients.js';
import { TRAINING_RUNTIMES, ObjectCalls } from '../../../src/kube/objects.js';
import { createActivities } from '../../../src/activities/index.js';
import { fetchRuntime } from '../../../src/kube/read-runtime.js';
import { renderStart } from '../../../src/core/start/render.js';
import { DispatchError } from '../../../src/model/errors.js';
import { fromFailure } from '../../../src/model/error-failures.js';
import { config, exampleRequest, loadInputRuntime, validOf } from '../../golden/cases.js';

const USER = 'system:serviceaccount:dispatch:dispatch-kubeflow';
const rbac = (verb: string, plural: string) =>
  `${plural}.trainer.kubeflow.org is forbidden: User "${USER}" cannot ${verb} resource "${plural}" in API group "trainer.kubeflow.org" in the namespace "ml-jobs"`;
const DENIAL =
  'admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: spec.runtimePatches: Invalid value: "...": must not have envs for the dataset-initializer, model-initializer, node containers';
const forbidden = (message: string) =>
  new ApiException(403, 'Forbidden', { reason: 'Forbidden', message }, {});

interface Fake {
  kube: KubeClients;
  deleted: string[];
}

/** A fake API whose creates and gets are refused with `refusal`; deletes succeed and are recorded. */
function fakeKube(refusal: ApiException<unknown>): Fake {
  const deleted: string[] = [];
  const custom = {
    createNamespacedCustomObject: () => Promise.reject(refusal),
    getNamespacedCustomObject: () => Promise.reject(refusal),
    getClusterCustomObject: () => Promise.reject(refusal),
    deleteNamespacedCustomObject: (params: { plural: string; name: string }) => {
      deleted.push(`${params.plural}/${params.name}`);
      return Promise.resolve({});
    },
  };
  return { kube: { custom, server: 'fake' } as unknown as KubeClients, deleted };
}

const activitiesOf = (fake: Fake) =>
  createActivities({ kube: fake.kube, settings: { config: config(), latestGates: () => undefined }, requestTimeoutMs: 1000 });
const rendered = () =>
  renderStart(
    validOf(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' })),
    loadInputRuntime('dispatch-kind'),
    config(),
  );

/** The typed failure an activity threw. */
async function failureOf(run: Promise<unknown>): Promise<DispatchError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return fromFailure(error)!;
}

describe('a definite refusal is typed by refusalType at steps 2, 5 and 6', () => {
  it('step 2: RBAC forbids reading the runtime: ErrReadOnly; a webhook-looking 403 is ErrRejected', async () => {
    const read = (refusal: ApiException<unknown>) =>
      fetchRuntime(new ObjectCalls(fakeKube(refusal).kube, { requestTimeoutMs: 1000 }), 'ml-jobs', {
        kind: 'ClusterTrainingRuntime',
        name: 'torch',
      }).then(
        () => undefined,
        (e: unknown) => e as DispatchError,
      );
    const readOnly = await read(forbidden(rbac('get', 'clustertrainingruntimes')));
    expect(readOnly).toMatchObject({ type: 'ErrReadOnly', step: 2 });
    expect(readOnly?.reasons[0]).toMatch(
      /^reading runtime ClusterTrainingRuntime\/torch is forbidden \(HTTP 403 Forbidden: /,
    );
    expect(await read(forbidden(DENIAL))).toMatchObject({ type: 'ErrRejected', step: 2 });
  });

  it('step 5: RBAC forbids creating the copy: ErrReadOnly; a webhook denial: ErrRejected, naming it', async () => {
    const create = (refusal: ApiException<unknown>) =>
      failureOf(
        new MockActivityEnvironment().run(activitiesOf(fakeKube(refusal)).createRuntimeCopy, {
          copy: rendered().runtimeCopy,
        }),
      );
    const readOnly = await create(forbidden(rbac('create', 'trainingruntimes')));
    expect(readOnly).toMatchObject({ type: 'ErrReadOnly', step: 5 });
    expect(readOnly.reasons[0]).toMatch(
      /^creating TrainingRuntime ml-jobs\/dj-\S+ is forbidden \(HTTP 403 Forbidden: /,
    );
    const rejected = await create(forbidden(DENIAL));
    expect(rejected).toMatchObject({ type: 'ErrRejected', step: 5 });
    expect(rejected.reasons[0]).toMatch(
      /^creating TrainingRuntime ml-jobs\/dj-\S+: HTTP 403 Forbidden: admission webhook /,
    );
  });

  it("step 6: Trainer's webhook denies the TrainJob (403): ErrRejected, the copy deleted; RBAC's 403: ErrReadOnly", async () => {
    const create = async (refusal: ApiException<unknown>) => {
      const fake = fakeKube(refusal);
      const { trainJob } = rendered();
      const copy = { name: trainJob.metadata.name!, uid: 'copy-uid' };
      const failure = await failureOf(
        new MockActivityEnvironment().run(activitiesOf(fake).createTrainJob, { trainJob, copy }),
      );
      return { failure, deleted: fake.deleted };
    };
    const webhook = await create(forbidden(DENIAL));
    expect(webhook.failure).toMatchObject({ type: 'ErrRejected', step: 6 });
    expect(webhook.failure.reasons).toEqual([
      expect.stringMatching(
        /^creating TrainJob ml-jobs\/dj-\S+: HTTP 403 Forbidden: admission webhook "validator\.trainjob\.trainer\.kubeflow\.org" denied the request: /,
      ),
    ]);
    expect(webhook.deleted).toEqual([`${TRAINING_RUNTIMES.plural}/${rendered().runtimeCopy.metadata!.name}`]);

    const readOnly = await create(forbidden(rbac('create', 'trainjobs')));
    expect(readOnly.failure).toMatchObject({ type: 'ErrReadOnly', step: 6 });
    expect(readOnly.failure.reasons[0]).toMatch(
      /^creating TrainJob ml-jobs\/dj-\S+ is forbidden \(HTTP 403 Forbidden: /,
    );
    expect(readOnly.deleted).toHaveLength(1);

    const invalid = await create(
      new ApiException(
        422,
        'Unprocessable Entity',
        { reason: 'Invalid', message: 'TrainJob is invalid' },
        {},
      ),
    );
    expect(invalid.failure).toMatchObject({ type: 'ErrRejected', step: 6 });
  });
});
