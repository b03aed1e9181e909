// Seed 000 step 6: "A create that fails definitely deletes the copy and returns the cause." The
// real API server refuses the TrainJob create (403: the identity may create runtimes, not TrainJobs).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Trainer } from '../../../src/model/constants.js';
import { DispatchError } from '../../../src/model/errors.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, grantRestricted, kubeAccess, type TestNamespace } from '../support/kube.js';

let ns: TestNamespace;
let h: DispatchHarness;

beforeAll(async () => {
  ns = await freshNamespace('definite');
  await grantRestricted(ns.name, 'runtimes-only', [
    { apiGroups: [Trainer.group], resources: ['trainingruntimes'], verbs: ['create', 'get', 'patch', 'delete'] },
    { apiGroups: [Trainer.group], resources: ['trainjobs'], verbs: ['get'] },
  ]);
  h = await startDispatch({ namespace: ns.name, access: kubeAccess('restricted', ns.name) });
});
afterAll(async () => {
  await h?.close();
  await ns?.dispose();
});

it('step 6 refused definitely (403): ErrReadOnly naming the cause, and the runtime copy is deleted', async () => {
  const request = startRequest();
  const error = await h.client.startTrainJob(request).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DispatchError);
  const failure = error as DispatchError;
  expect(failure.type).toBe('ErrReadOnly');
  expect(failure.step).toBe(6);
  expect(failure.reasons).toHaveLength(1);
  expect(failure.reasons[0]).toMatch(/^creating TrainJob .* is forbidden \(HTTP 403 Forbidden: /);
  const copies = (await h.kube.custom.listNamespacedCustomObject({
    group: Trainer.group,
    version: Trainer.version,
    namespace: ns.name,
    plural: 'trainingruntimes',
  })) as { items: unknown[] };
  expect(copies.items).toEqual([]);
});
