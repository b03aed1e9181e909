// The restricted identity: RBAC is in force (403 on what it lacks) and SelfSubjectAccessReview
// answers for it, which is how the write gate is proven (docs/contract.md §8).
import { AuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Trainer } from '../../../src/model/constants.js';
import { freshNamespace, grantRestricted, kubeConfig, type TestNamespace } from '../support/kube.js';
import { minimalTrainJob, trainerObjects } from '../support/trainer.js';

describe('restricted identity', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = await freshNamespace('rbac');
  });
  afterAll(async () => ns?.dispose());

  const review = (namespace: string, verb: string, resource: string) =>
    kubeConfig('restricted')
      .makeApiClient(AuthorizationV1Api)
      .createSelfSubjectAccessReview({
        body: { spec: { resourceAttributes: { namespace, verb, group: Trainer.group, resource } } },
      })
      .then((r) => r.status?.allowed);

  it('gets 403 creating a TrainJob it was not granted', async () => {
    const jobs = trainerObjects(kubeConfig('restricted'), ns.name, Trainer.trainJobPlural);
    await expect(jobs.create(minimalTrainJob('forbidden'))).rejects.toMatchObject({ code: 403 });
  });

  it('may read Trainer objects', async () => {
    const jobs = trainerObjects(kubeConfig('restricted'), ns.name, Trainer.trainJobPlural);
    expect(await jobs.find('nothing')).toBeUndefined();
  });

  it('SelfSubjectAccessReview answers for it, before and after a grant', async () => {
    expect(await review(ns.name, 'create', Trainer.trainJobPlural)).toBe(false);
    expect(await review(ns.name, 'get', Trainer.trainingRuntimePlural)).toBe(true);
    await grantRestricted(ns.name, 'writer', [{ apiGroups: [Trainer.group], resources: [Trainer.trainJobPlural], verbs: ['create'] }]);
    expect(await review(ns.name, 'create', Trainer.trainJobPlural)).toBe(true);
    expect(await review(ns.name, 'delete', Trainer.trainJobPlural)).toBe(false);
  });
});
