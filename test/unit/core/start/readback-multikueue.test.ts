// Read-back with Kueue's MultiKueue (docs/contract.md §11, §4a): spec.managedBy
// `kueue.x-k8s.io/multikueue` is accepted only when kueue.multiKueue is configured, in Kueue mode,
// and nothing else beyond Trainer's controller; without the configuration the seed's refusal stands.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptedManagedBy, compareReadBack, type ReadBackConfig } from '../../../../src/core/start/readback.js';
import { renderStart } from '../../../../src/core/start/render.js';
import { Kueue, Trainer } from '../../../../src/model/constants.js';
import type { TrainJob } from '../../../../src/model/kube.js';
import { config, exampleRequest, KUEUE, loadInputRuntime, validOf } from '../../../golden/cases.js';

const MULTI_KUEUE = { clusters: [{ name: 'w1', kubeconfig: '/w1' }] };
const kueueConfig = config(KUEUE);
const written: TrainJob = renderStart(validOf(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' })), loadInputRuntime('dispatch-kind'), kueueConfig).trainJob;

/** The TrainJob as the server holds it, with `managedBy` (absent when undefined). */
function readWith(managedBy: string | undefined): TrainJob {
  const read = JSON.parse(JSON.stringify(written)) as TrainJob;
  read.metadata.uid = 'uid-1';
  if (managedBy === undefined) delete read.spec.managedBy;
  else read.spec.managedBy = managedBy;
  return read;
}

/** Every shape of configuration read-back is given: a mode, or the mode with Kueue's settings, with or without MultiKueue. */
const configArb: fc.Arbitrary<{ config: ReadBackConfig; multiKueue: boolean }> = fc.oneof(
  fc.constantFrom('plain' as const, 'kueue' as const).map((mode) => ({ config: mode, multiKueue: false })),
  fc.record({ mode: fc.constantFrom('plain' as const, 'kueue' as const), configured: fc.boolean() }).map(({ mode, configured }) => ({
    config: { mode, kueue: configured ? { ...kueueConfig.kueue, multiKueue: MULTI_KUEUE } : kueueConfig.kueue },
    multiKueue: configured && mode === 'kueue',
  })),
);

/** Values a webhook could set: the two known ones, look-alikes, and anything. */
const managedByArb = fc.oneof(
  fc.constantFrom(Trainer.controllerManagedBy, Kueue.multiKueueManagedBy, 'kueue.x-k8s.io/multikueue ', 'kueue.x-k8s.io/MultiKueue', 'kueue.x-k8s.io/manager', ''),
  fc.string(),
);

const managedByReasons = (c: ReadBackConfig, managedBy: string | undefined) =>
  compareReadBack(written, readWith(managedBy), c).filter((r) => r.startsWith('spec.managedBy'));

describe('read-back of spec.managedBy with and without kueue.multiKueue', () => {
  it("property: accepted exactly when absent, Trainer's controller, or (MultiKueue configured in Kueue mode) Kueue's MultiKueue", () => {
    fc.assert(
      fc.property(configArb, fc.option(managedByArb, { nil: undefined }), ({ config: c, multiKueue }, managedBy) => {
        const accepted = managedBy === undefined || managedBy === Trainer.controllerManagedBy || (multiKueue && managedBy === Kueue.multiKueueManagedBy);
        expect(managedByReasons(c, managedBy)).toHaveLength(accepted ? 0 : 1);
      }),
    );
  });

  it('property: MultiKueue changes nothing else read-back checks (the same reasons for any other field)', () => {
    fc.assert(
      fc.property(fc.constantFrom(Trainer.controllerManagedBy, Kueue.multiKueueManagedBy, 'x'), fc.string(), (managedBy, label) => {
        const read = readWith(managedBy);
        read.metadata.labels = { ...read.metadata.labels, 'dispatch.phpboyscout.uk/job-id': label };
        const others = (c: ReadBackConfig) => compareReadBack(written, read, c).filter((r) => !r.startsWith('spec.managedBy'));
        expect(others({ mode: 'kueue', kueue: { multiKueue: MULTI_KUEUE } })).toEqual(others('kueue'));
      }),
    );
  });

  it('the refusal names what is accepted', () => {
    expect(managedByReasons('kueue', Kueue.multiKueueManagedBy)).toEqual([
      'spec.managedBy: "kueue.x-k8s.io/multikueue", not absent or "trainer.kubeflow.org/trainjob-controller"',
    ]);
    expect(managedByReasons({ mode: 'kueue', kueue: { multiKueue: MULTI_KUEUE } }, 'other')).toEqual([
      'spec.managedBy: "other", not absent or "trainer.kubeflow.org/trainjob-controller" or "kueue.x-k8s.io/multikueue"',
    ]);
  });

  it('MultiKueue configured outside Kueue mode (which the configuration refuses) accepts nothing more', () => {
    expect(acceptedManagedBy({ mode: 'plain', kueue: { multiKueue: MULTI_KUEUE } })).toEqual([Trainer.controllerManagedBy]);
  });
});
