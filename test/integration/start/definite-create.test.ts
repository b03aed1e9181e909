// Seed 000 step 6: "A create that fails definitely deletes the copy and returns the cause." The
// real API server refuses the TrainJob create: RBAC's 403 (the identity may create runtimes, not
// TrainJobs) is ErrReadOnly; the real Trainer webhook's 403 denial is the cluster refusing the
// object, ErrRejected.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Trainer } from '../../../src/model/constants.js';
import { DispatchError } from '../../../src/model/errors.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, grantRestricted, kubeAccess, type TestNamespace } from '../support/kube.js';

let ns: TestNamespace;
let h: DispatchHarness;
let admin: DispatchHarness;

beforeAll(async () => {
  ns = await freshNamespace('definite');
  await grantRestricted(ns.name, 'runtimes-only', [
    { apiGroups: [Trainer.group], resources: ['trainingruntimes'], verbs: ['create', 'get', 'patch', 'delete'] },
    { apiGroups: [Trainer.group], resources: ['trainjobs'], verbs: ['get'] },
  ]);
  h = await startDispatch({ namespace: ns.name, access: kubeAccess('restricted', ns.name) });
  admin = await startDispatch({ namespace: ns.name });
});
afterAll(async () => {
  await h?.close();
  await admin?.close();
  await ns?.dispose();
});

const copiesIn = async (harness: DispatchHarness) =>
  (
    (await harness.kube.custom.listNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      namespace: ns.name,
      plural: 'trainingruntimes',
    })) as { items: unknown[] }
  ).items;

it('step 6 refused definitely (403): ErrReadOnly naming the cause, and the runtime copy is deleted', async () => {
  const request = startRequest();
  const error = await h.client.startTrainJob(request).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DispatchError);
  const failure = error as DispatchError;
  expect(failure.type).toBe('ErrReadOnly');
  expect(failure.step).toBe(6);
  expect(failure.reasons).toHaveLength(1);
  expect(failure.reasons[0]).toMatch(/^creating TrainJob .* is forbidden \(HTTP 403 Forbidden: /);
  expect(await copiesIn(h)).toEqual([]);
});

it("step 6 denied by Trainer's admission webhook (403): ErrRejected, not ErrReadOnly; the copy is deleted", async () => {
  // Trainer's torch plugin reserves torchrun's variables; dispatch's rules leave them to Trainer.
  const request = startRequest({ runtime: { kind: 'ClusterTrainingRuntime', name: 'dispatch-torch' }, spec: { env: { PET_NNODES: '3' } } });
  const error = await admin.client.startTrainJob(request).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DispatchError);
  const failure = error as DispatchError;
  expect(failure.type).toBe('ErrRejected');
  expect(failure.step).toBe(6);
  expect(failure.reasons.join('\n')).toContain('admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request');
  expect(failure.reasons.join('\n')).toContain('must not have reserved envs');
  expect(await copiesIn(admin)).toEqual([]);
});
