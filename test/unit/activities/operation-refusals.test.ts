// The operations after Start type a definite refusal by the one rule (src/core/objects/refusal-type.ts,
// docs/contract.md §6, §9a): RBAC's 403 on a read, a write or Stop's delete is ErrReadOnly; an
// admission webhook's denial (a 403 too) stays ErrRejected. The activities as createActivities
// builds them run in a mock activity context against a fake API that refuses every call.
import { ApiException } from '@kubernetes/client-node';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../../../src/activities/index.js';
import type { KubeClients } from '../../../src/kube/clients.js';
import type { PlannedWrite } from '../../../src/core/objects/planned-write.js';
import { fromFailure } from '../../../src/model/error-failures.js';
import { config } from '../../golden/cases.js';

const REF = { namespace: 'ml-jobs', name: 'dj-x-s1', uid: 'u-1' };
const USER = 'system:serviceaccount:ml-jobs:reader';
const rbac = (verb: string) =>
  `trainjobs.trainer.kubeflow.org "dj-x-s1" is forbidden: User "${USER}" cannot ${verb} resource "trainjobs" in API group "trainer.kubeflow.org" in the namespace "ml-jobs"`;
const DENIAL = 'admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: spec.suspend: Invalid value';
const forbidden = (message: string) => new ApiException(403, 'Forbidden', { reason: 'Forbidden', message }, {});

function activitiesRefusing(refusal: ApiException<unknown>) {
  const refuse = () => Promise.reject(refusal);
  const custom = { getNamespacedCustomObject: refuse, patchNamespacedCustomObject: refuse, deleteNamespacedCustomObject: refuse };
  const kube = { custom, server: 'fake' } as unknown as KubeClients;
  return createActivities({ kube, settings: { config: config(), latestGates: () => undefined }, requestTimeoutMs: 1000 });
}

const write: PlannedWrite = {
  kind: 'TrainJob',
  namespace: REF.namespace,
  name: REF.name,
  uid: REF.uid,
  patch: [{ op: 'replace', path: '/spec/suspend', value: false }],
  summary: `TrainJob ml-jobs/${REF.name}: spec.suspend false`,
};

async function typeOf(run: Promise<unknown>): Promise<{ type: string; reasons: readonly string[] }> {
  const error = await run.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApplicationFailure);
  const failure = fromFailure(error)!;
  return { type: failure.type, reasons: failure.reasons };
}

const calls = {
  observeTrainJob: (refusal: ApiException<unknown>) => new MockActivityEnvironment().run(activitiesRefusing(refusal).observeTrainJob, { config: config(), ref: REF }),
  applyWrite: (refusal: ApiException<unknown>) => new MockActivityEnvironment().run(activitiesRefusing(refusal).applyWrite, { write, workloadVersion: 'v1beta2', ref: REF }),
  deleteTrainJob: (refusal: ApiException<unknown>) => new MockActivityEnvironment().run(activitiesRefusing(refusal).deleteTrainJob, { ref: REF }),
};

describe('the operations’ reads, writes and deletes', () => {
  it.each(Object.entries(calls))('%s: RBAC’s 403 is ErrReadOnly naming what is forbidden; a webhook’s denial is ErrRejected', async (_name, call) => {
    const readOnly = await typeOf(call(forbidden(rbac('patch'))));
    expect(readOnly.type).toBe('ErrReadOnly');
    expect(readOnly.reasons[0]).toMatch(/ is forbidden \(HTTP 403 Forbidden: .*cannot patch/);
    expect((await typeOf(call(forbidden(DENIAL)))).type).toBe('ErrRejected');
  });
});
