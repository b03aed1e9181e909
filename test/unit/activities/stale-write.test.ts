// Which definite answers to a planned write mean "what was read has changed: read again"
// (src/activities/operation-activities.ts). The 422 message is the one the real kube-apiserver
// v1.35 answers for a JSON patch whose `test` fails or whose path is missing (checked there by hand:
// both answer exactly this, with empty details); a webhook's or a schema's 422 names its causes.
import { ApiException } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../../../src/activities/index.js';
import type { KubeClients } from '../../../src/kube/clients.js';
import { STALE_WRITE_PAUSE_MS, staleWritePauseMs } from '../../../src/activities/operation-activities.js';
import { isStaleWrite } from '../../../src/kube/planned-write.js';
import type { PlannedWrite } from '../../../src/core/objects/planned-write.js';
import { config } from '../../golden/cases.js';

const PATCH_NOT_APPLIED = 'the server rejected our request due to an error in our request';

describe('isStaleWrite', () => {
  it.each([
    [409, 'Operation cannot be fulfilled on trainjobs: the object has been modified', true],
    [404, 'trainjobs.trainer.kubeflow.org "x" not found', true],
    [422, PATCH_NOT_APPLIED, true],
    [422, 'TrainJob.trainer.kubeflow.org "x" is invalid: spec.suspend: Invalid value', false],
    [403, 'admission webhook "validate.trainjob.trainer.kubeflow.org" denied the request', false],
    [400, PATCH_NOT_APPLIED, false],
  ])('HTTP %i %j: %s', (status, message, stale) => {
    expect(isStaleWrite({ status, message })).toBe(stale);
  });
});

describe('applyWrite', () => {
  const write: PlannedWrite = {
    kind: 'Workload',
    namespace: 'ns',
    name: 'w',
    uid: 'wu',
    patch: [{ op: 'replace', path: '/spec/active', value: true }],
    summary: 'Workload ns/w: spec.active true',
  };
  const ref = { namespace: 'ns', name: 'job', uid: 'u' };
  const activitiesAnswering = (error?: Error) => {
    const custom = {
      patchNamespacedCustomObject: () => (error ? Promise.reject(error) : Promise.resolve({ metadata: { name: 'w' } })),
    };
    const kube = { custom, server: 'fake' } as unknown as KubeClients;
    return createActivities({ kube, settings: { config: config(), latestGates: () => undefined }, requestTimeoutMs: 1000 });
  };

  it('a write that found its object changed waits STALE_WRITE_PAUSE_MS before it answers, so the next read comes after the burst', async () => {
    const stale = new ApiException(422, 'Invalid', { reason: 'Invalid', message: PATCH_NOT_APPLIED }, {});
    const t0 = Date.now();
    const answer = await new MockActivityEnvironment().run(activitiesAnswering(stale).applyWrite, { write, workloadVersion: 'v1beta2', ref });
    expect(answer).toEqual({ applied: false, why: `${write.summary}: HTTP 422 Invalid: ${PATCH_NOT_APPLIED}` });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(STALE_WRITE_PAUSE_MS - 20);

    const t1 = Date.now();
    expect(await new MockActivityEnvironment().run(activitiesAnswering().applyWrite, { write, workloadVersion: 'v1beta2', ref })).toEqual({ applied: true });
    expect(Date.now() - t1).toBeLessThan(STALE_WRITE_PAUSE_MS);
  });

  it('the pause doubles with each stale write in a row, up to 4 s and half the activity bound', async () => {
    expect([0, 1, 2, 3, 4, 9].map((n) => staleWritePauseMs(n, 30_000))).toEqual([500, 1_000, 2_000, 4_000, 4_000, 4_000]);
    expect(staleWritePauseMs(3, 2_000)).toBe(1_000);
    const stale = new ApiException(422, 'Invalid', { reason: 'Invalid', message: PATCH_NOT_APPLIED }, {});
    const t0 = Date.now();
    await new MockActivityEnvironment({ startToCloseTimeoutMs: 30_000 }).run(activitiesAnswering(stale).applyWrite, { write, workloadVersion: 'v1beta2', ref, staleInARow: 1 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000 - 20);
  });
});
