// Which definite answers to a planned write mean "what was read has changed: read again"
// (src/activities/lifecycle-activities.ts). The 422 message is the one the real kube-apiserver
// v1.35 answers for a JSON patch whose `test` fails or whose path is missing (checked there by hand:
// both answer exactly this, with empty details); a webhook's or a schema's 422 names its causes.
import { describe, expect, it } from 'vitest';
import { isStaleWrite } from '../../../src/activities/lifecycle-activities.js';

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
