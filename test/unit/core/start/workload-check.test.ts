// Seed 000, step 9: in Kueue mode the TrainJob's Workload must exist, carry dispatch's gate and
// list kueue.admissionCheck. The Workloads here are shaped as Kueue v0.19.2 writes them.
import { describe, expect, it } from 'vitest';
import { gatesOf } from '../../../../src/core/objects/gates.js';
import { workloadLabelSelector } from '../../../../src/core/objects/workloads.js';
import { checkWorkload } from '../../../../src/core/start/workload-check.js';
import { Annotations, Dispatch, Labels } from '../../../../src/model/constants.js';
import type { Workload } from '../../../../src/model/kube.js';
import { config, KUEUE } from '../../../golden/cases.js';
import { CRDS, crdValidator } from '../../../support/crd-schema.js';

const UID = '0b5b2c1e-1111-2222-3333-444455556666';
const cfg = config(KUEUE);

function workload(version: 'v1beta1' | 'v1beta2' = 'v1beta2'): Workload {
  return {
    apiVersion: `kueue.x-k8s.io/${version}`,
    kind: 'Workload',
    metadata: {
      name: 'trainjob-dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12-1a2b3',
      namespace: 'ml-jobs',
      labels: { [Labels.kueueJobUid]: UID },
      annotations: { [Annotations.kueueAdmissionGatedBy]: Dispatch.defaultGate },
    },
    spec: {
      queueName: 'user-queue',
      podSets: [
        { name: 'node', count: 2, template: { spec: { containers: [{ name: 'node', image: 'x' }] } } },
      ],
    },
    status: {
      admissionChecks: [
        { name: 'dispatch', state: 'Pending', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
    },
  };
}

describe('the test Workloads match the Kueue v0.19.2 Workload CRD', () => {
  it.each(['v1beta1', 'v1beta2'] as const)('%s', (version) => {
    // The Workload CRD's CEL rules are not evaluated: dispatch only reads Workloads.
    const validate = crdValidator(CRDS.workload, { version, unknownRules: 'skip' });
    expect(validate(workload(version))).toEqual([]);
  });
});

describe('checkWorkload (docs/start.md, step 9)', () => {
  it.each(['v1beta1', 'v1beta2'] as const)(
    'a %s Workload with the job-uid label, the gate and the check passes',
    (version) => {
      expect(checkWorkload(workload(version), UID, cfg)).toEqual([]);
    },
  );

  it('a Workload that did not appear', () => {
    expect(checkWorkload(undefined, UID, cfg)).toEqual([
      `Workload: none labelled kueue.x-k8s.io/job-uid=${UID} in ml-jobs`,
    ]);
  });

  it('a Workload of another TrainJob (the job-uid label)', () => {
    const w = workload();
    w.metadata!.labels![Labels.kueueJobUid] = 'other';
    expect(checkWorkload(w, UID, cfg)).toEqual([
      `Workload ml-jobs/${w.metadata!.name}: label kueue.x-k8s.io/job-uid is "other", not "${UID}"`,
    ]);
    delete w.metadata!.labels;
    expect(checkWorkload(w, UID, cfg)[0]).toMatch(/label kueue\.x-k8s\.io\/job-uid is absent/);
  });

  it('a Workload that lacks the gate', () => {
    const w = workload();
    w.metadata!.annotations![Annotations.kueueAdmissionGatedBy] = 'example.com/other';
    expect(checkWorkload(w, UID, cfg)).toEqual([
      `Workload ml-jobs/${w.metadata!.name}: annotation kueue.x-k8s.io/admission-gated-by lacks ${Dispatch.defaultGate} (is "example.com/other")`,
    ]);
    delete w.metadata!.annotations;
    expect(checkWorkload(w, UID, cfg)[0]).toMatch(/lacks dispatch\.phpboyscout\.uk\/start \(is absent\)/);
  });

  it('the gate among others in the comma-separated list', () => {
    const w = workload();
    w.metadata!.annotations![Annotations.kueueAdmissionGatedBy] =
      `example.com/a, ${Dispatch.defaultGate},example.com/b`;
    expect(checkWorkload(w, UID, cfg)).toEqual([]);
  });

  it('a gate that only contains ours as a substring is not ours', () => {
    const w = workload();
    w.metadata!.annotations![Annotations.kueueAdmissionGatedBy] = `${Dispatch.defaultGate}-later`;
    expect(checkWorkload(w, UID, cfg)).toHaveLength(1);
  });

  it('a configured gate', () => {
    const gated = config({ ...KUEUE, kueue: { ...KUEUE.kueue!, gate: 'example.com/gate' } });
    expect(checkWorkload(workload(), UID, gated)).toHaveLength(1);
    const w = workload();
    w.metadata!.annotations![Annotations.kueueAdmissionGatedBy] = 'example.com/gate';
    expect(checkWorkload(w, UID, gated)).toEqual([]);
  });

  it('a Workload whose status does not list the admission check', () => {
    const w = workload();
    w.status!.admissionChecks = [{ name: 'other-check', state: 'Pending' }];
    expect(checkWorkload(w, UID, cfg)).toEqual([
      `Workload ml-jobs/${w.metadata!.name}: status.admissionChecks lacks dispatch`,
    ]);
    delete w.status;
    expect(checkWorkload(w, UID, cfg)).toEqual([
      `Workload ml-jobs/${w.metadata!.name}: status.admissionChecks lacks dispatch`,
    ]);
  });

  it('names every missing part at once', () => {
    const bare: Workload = { metadata: {} };
    expect(checkWorkload(bare, UID, cfg)).toEqual([
      `Workload ml-jobs/?: label kueue.x-k8s.io/job-uid is absent, not "${UID}"`,
      `Workload ml-jobs/?: annotation kueue.x-k8s.io/admission-gated-by lacks ${Dispatch.defaultGate} (is absent)`,
      'Workload ml-jobs/?: status.admissionChecks lacks dispatch',
    ]);
  });
});

describe('workloadLabelSelector and gatesOf', () => {
  it('selects by the job-uid label', () => {
    expect(workloadLabelSelector(UID)).toBe(`kueue.x-k8s.io/job-uid=${UID}`);
  });

  it('splits a comma-separated list, trimming blanks', () => {
    expect(gatesOf(' a/b , c/d,,')).toEqual(['a/b', 'c/d']);
    expect(gatesOf(undefined)).toEqual([]);
  });
});
