// The CRD validator the render tests rely on: it must refuse what the API server would refuse or
// prune, or "validates against the CRD" would prove nothing.
import { describe, expect, it } from 'vitest';
import { renderStart } from '../../../../src/core/start/render.js';
import type { TrainJob } from '../../../../src/model/kube.js';
import { config, exampleRequest, loadInputRuntime, validOf } from '../../../golden/cases.js';
import {
  CRDS,
  crdValidator,
  loadCrdSchema,
  validateTrainingRuntime,
  validateTrainJob,
} from '../../../support/crd-schema.js';

/** Any field, as a wrong client might write it. */
const loose = (value: object) => value as Record<string, unknown>;
const KIND = { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' } as const;
const rendered = () =>
  renderStart(validOf(exampleRequest(KIND)), loadInputRuntime('dispatch-kind'), config());
const trainJobWith = (edit: (t: TrainJob) => void): TrainJob => {
  const { trainJob } = rendered();
  edit(trainJob);
  return trainJob;
};

describe('crdValidator', () => {
  it('loads the CRDs from the Trainer and Kueue Go modules', () => {
    expect(loadCrdSchema(CRDS.trainJob).properties).toHaveProperty('spec');
    expect(loadCrdSchema(CRDS.workload, 'v1beta1').properties).toHaveProperty('status');
    expect(() => loadCrdSchema(CRDS.workload, 'v9')).toThrow(/no version v9; has v1beta1, v1beta2/);
  });

  it('accepts a rendered TrainJob and runtime copy', () => {
    expect(validateTrainJob(rendered().trainJob)).toEqual([]);
    expect(validateTrainingRuntime(rendered().runtimeCopy)).toEqual([]);
  });

  it('accepts every input runtime under its own kind', () => {
    for (const name of ['dispatch-kind', 'torch-distributed', 'dispatch-probe']) {
      expect(crdValidator(CRDS.clusterTrainingRuntime)(loadInputRuntime(name))).toEqual([]);
    }
    expect(validateTrainingRuntime(loadInputRuntime('publish'))).toEqual([]);
  });

  it.each<[string, (t: TrainJob) => void, RegExp]>([
    [
      'an unknown field, which pruning would drop',
      (t) => (loose(t.spec.trainer).bogus = 1),
      /\/spec\/trainer: .*additional.*\(bogus\)/,
    ],
    [
      'an unknown field in the runtime patch',
      (t) => (t.spec.runtimePatches[0]!.trainingRuntimeSpec!.template = { spec: { extra: {} } }),
      /additional.*\(extra\)/,
    ],
    [
      'numProcPerNode as a string (int32 in v2.3.0)',
      (t) => (t.spec.trainer.numProcPerNode = 'auto' as never),
      /numProcPerNode: must be integer/,
    ],
    [
      'a malformed quantity',
      (t) => (t.spec.trainer.resourcesPerNode = { limits: { 'nvidia.com/gpu': 'eight' } }),
      /resourcesPerNode\/limits\/nvidia.com~1gpu: must match pattern/,
    ],
    ['a fractional numNodes', (t) => (t.spec.trainer.numNodes = 1.5), /numNodes: must be integer/],
    [
      'numNodes beyond int32',
      (t) => (t.spec.trainer.numNodes = 2 ** 31),
      /numNodes: must match format "int32"/,
    ],
    [
      'activeDeadlineSeconds 0 (minimum 1)',
      (t) => (t.spec.activeDeadlineSeconds = 0),
      /activeDeadlineSeconds: must be >= 1/,
    ],
    [
      'a duplicate env name (list-type map)',
      (t) => t.spec.trainer.env.push({ name: 'LR', value: 'x' }),
      /\/spec\/trainer\/env: duplicate map entry \["LR"\]/,
    ],
    [
      '129 command items',
      (t) => (t.spec.trainer.command = Array.from({ length: 129 }, () => 'x')),
      /command: must NOT have more than 128 items/,
    ],
    [
      'a second patch by the same manager',
      (t) => t.spec.runtimePatches.push({ manager: t.spec.runtimePatches[0]!.manager }),
      /duplicate map entry/,
    ],
    [
      'a name that is not an RFC 1035 label (CEL rule)',
      (t) => (t.metadata.name = '1abc'),
      /metadata.name must match RFC 1035 DNS label format/,
    ],
    ['a managedBy outside the allowed two (CEL rule)', (t) => (t.spec.managedBy = 'me'), /ManagedBy must be/],
    [
      'a label value over 63 characters',
      (t) => (t.metadata.labels!.x = 'a'.repeat(64)),
      /\/metadata\/labels\/x: must NOT have more than 63/,
    ],
    [
      'a malformed label key',
      (t) => (t.metadata.labels!['a b'] = 'x'),
      /\/metadata\/labels: property name must be valid/,
    ],
    [
      'a non-string annotation',
      (t) => (t.metadata.annotations!.x = 1 as never),
      /\/metadata\/annotations\/x: must be string/,
    ],
    [
      'a missing runtimeRef name',
      (t) => delete (t.spec.runtimeRef as Partial<TrainJob['spec']['runtimeRef']>).name,
      /runtimeRef: must have required property 'name'/,
    ],
  ])('refuses %s', (_what, edit, error) => {
    const errors = validateTrainJob(trainJobWith(edit));
    expect(errors.join('\n')).toMatch(error);
  });

  it('ignores transition rules (oldSelf) on create', () => {
    // spec.runtimeRef, spec.trainer, activeDeadlineSeconds and managedBy carry "self == oldSelf".
    expect(
      validateTrainJob(trainJobWith((t) => (t.spec.managedBy = 'trainer.kubeflow.org/trainjob-controller'))),
    ).toEqual([]);
  });

  it("evaluates the runtime CRDs' CEL rules", () => {
    const runtime = loadInputRuntime('torch-distributed');
    (runtime.spec!.mlPolicy as Record<string, unknown>).mpi = {};
    expect(crdValidator(CRDS.clusterTrainingRuntime)(runtime).join('\n')).toMatch(
      /torch, mpi|filter\(x, x\)\.size\(\) <= 1/,
    );
  });

  it('reports a CEL rule it does not know, unless told to skip it', () => {
    // The Workload CRD's rules are not in the table: its spec rule fires for any spec.
    const workload = {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'Workload',
      metadata: { name: 'w' },
      spec: { podSets: [] },
    };
    expect(crdValidator(CRDS.workload, { version: 'v1beta2' })(workload).join('\n')).toMatch(
      /unsupported CEL rule/,
    );
    expect(
      crdValidator(CRDS.workload, { version: 'v1beta2', unknownRules: 'skip' })(workload).join('\n'),
    ).not.toMatch(/unsupported CEL rule/);
  });
});
