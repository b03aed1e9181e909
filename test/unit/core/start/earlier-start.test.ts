// Step 5 of a retried Start whose attempt already succeeded in an earlier run (src/core/start/earlier-start.ts):
// the copy owned by the attempt's own, unopened TrainJob is this attempt's; anything else keeps the
// seed's refusal of an owned copy.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { earlierOwnerOf, earlierStartReasons } from '../../../../src/core/start/earlier-start.js';
import { renderStart } from '../../../../src/core/start/render.js';
import type { Mode } from '../../../../src/model/config.js';
import { OperationAnnotations, OperationAnnotationValues } from '../../../../src/model/constants.js';
import { takenOverBy } from '../../../../src/core/operations/facts.js';

/** The caller opened or held it (§7). */
const isTakenOver = (...args: Parameters<typeof takenOverBy>) => takenOverBy(...args) !== undefined;
import { Annotations, Trainer } from '../../../../src/model/constants.js';
import type { TrainerRuntime, TrainJob } from '../../../../src/model/kube.js';
import { config, exampleRequest, KUEUE, loadInputRuntime, validOf } from '../../../golden/cases.js';

const UID = '7f0c3b1e-0000-4000-8000-000000000001';

const gateConfig = (mode: Mode) => config(mode === 'kueue' ? KUEUE : {});

const rendered = (mode: Mode) =>
  renderStart(
    validOf(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' })),
    loadInputRuntime('dispatch-kind'),
    config(mode === 'kueue' ? KUEUE : {}),
  );

/** The copy as the earlier run left it: created, then owned by its TrainJob (step 7). */
function ownedCopy(copy: TrainerRuntime, edit: (c: TrainerRuntime) => void = () => {}): TrainerRuntime {
  const existing = structuredClone(copy);
  existing.metadata = {
    ...existing.metadata,
    uid: 'copy-uid',
    ownerReferences: [{ apiVersion: Trainer.apiVersion, kind: Trainer.trainJobKind, name: copy.metadata!.name!, uid: UID }],
  };
  edit(existing);
  return existing;
}

/** The TrainJob as the API server holds it after the earlier run's step 8: ours, plus server fields. */
function serverTrainJob(trainJob: TrainJob, edit: (t: TrainJob) => void = () => {}): TrainJob {
  const read = structuredClone(trainJob);
  read.metadata.uid = UID;
  read.metadata.resourceVersion = '42';
  read.spec.managedBy = Trainer.controllerManagedBy;
  edit(read);
  return read;
}

/** Each way a copy stops being a candidate, named for the failure message. */
const NOT_CANDIDATE: Record<string, (c: TrainerRuntime) => void> = {
  'another attempt token': (c) => (c.metadata!.annotations![Annotations.attemptToken] = '2-000000000000'),
  'no attempt token': (c) => delete c.metadata!.annotations![Annotations.attemptToken],
  'a spec that differs': (c) => (c.spec = { ...c.spec, mlPolicy: { numNodes: 99 } }),
  'two owners': (c) => c.metadata!.ownerReferences!.push({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'y' }),
  'an owner of another kind': (c) => (c.metadata!.ownerReferences![0]!.kind = 'JobSet'),
  'an owner of another name': (c) => (c.metadata!.ownerReferences![0]!.name = 'dj-other-s1'),
  'an owner without uid': (c) => (c.metadata!.ownerReferences![0]!.uid = ''),
  'being deleted': (c) => (c.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z'),
};

describe('earlierOwnerOf: which owned copies may be the earlier run of this attempt', () => {
  it('the copy this attempt made, owned by the TrainJob of its name, names that owner', () => {
    for (const mode of ['plain', 'kueue'] as const) {
      const { runtimeCopy } = rendered(mode);
      expect(earlierOwnerOf(ownedCopy(runtimeCopy), runtimeCopy)).toEqual({ name: runtimeCopy.metadata!.name, uid: UID });
    }
  });

  it('any one difference makes it no candidate, so the seed refusal stands unchanged', () => {
    const { runtimeCopy } = rendered('plain');
    fc.assert(
      fc.property(fc.subarray(Object.keys(NOT_CANDIDATE), { minLength: 1 }), (ways) => {
        const existing = ownedCopy(runtimeCopy, (c) => ways.forEach((w) => NOT_CANDIDATE[w]!(c)));
        expect(earlierOwnerOf(existing, runtimeCopy)).toBeUndefined();
      }),
    );
  });
});

describe('earlierStartReasons: is the owner the unopened TrainJob of this attempt', () => {
  const owner = (trainJob: TrainJob) => ({ name: trainJob.metadata.name!, uid: UID });

  it('as Start left it, in either mode: adopted (no reasons)', () => {
    for (const mode of ['plain', 'kueue'] as const) {
      const { trainJob } = rendered(mode);
      expect(earlierStartReasons(owner(trainJob), serverTrainJob(trainJob), trainJob, gateConfig(mode))).toEqual([]);
    }
  });

  it('opened since: refused, naming what changed (plain: suspend; Kueue: the gate)', () => {
    const plain = rendered('plain').trainJob;
    const opened = serverTrainJob(plain, (t) => (t.spec.suspend = false));
    expect(earlierStartReasons(owner(plain), opened, plain, gateConfig('plain'))).toEqual([
      expect.stringMatching(/is this attempt's, but was opened or changed since .* does not adopt it: spec\.suspend: wrote true, read false; the caller has opened it$/),
    ]);

    const kueue = rendered('kueue').trainJob;
    const ungated = serverTrainJob(kueue, (t) => delete t.metadata.annotations![Annotations.kueueAdmissionGatedBy]);
    expect(earlierStartReasons(owner(kueue), ungated, kueue, gateConfig('kueue'))).toEqual([expect.stringContaining('the caller has opened it')]);
  });

  it('gone, replaced, being deleted or another attempt: refused with the one reason', () => {
    const { trainJob } = rendered('plain');
    const cases: [TrainJob | undefined, RegExp][] = [
      [undefined, /does not exist$/],
      [serverTrainJob(trainJob, (t) => (t.metadata.uid = 'other')), /has uid other, not /],
      [serverTrainJob(trainJob, (t) => (t.metadata.deletionTimestamp = '2026-01-01T00:00:00Z')), /is being deleted$/],
      [serverTrainJob(trainJob, (t) => (t.metadata.annotations![Annotations.attemptToken] = '3-abc')), /carries attempt token 3-abc, not /],
    ];
    for (const [found, reason] of cases) {
      expect(earlierStartReasons(owner(trainJob), found, trainJob, gateConfig('plain'))).toEqual([expect.stringMatching(reason)]);
    }
  });
});

describe('earlierStartReasons: never adopts a TrainJob the caller took over (docs/contract.md §7)', () => {
  const owner = (trainJob: TrainJob) => ({ name: trainJob.metadata.name!, uid: UID });
  /** What the caller may have done to the earlier run's TrainJob since: Open and Hold, in any order, or other edits. */
  const EDITS: Record<string, (t: TrainJob, mode: Mode) => void> = {
    held: (t) => (t.metadata.annotations = { ...t.metadata.annotations, [OperationAnnotations.held]: OperationAnnotationValues.held }),
    'opened (annotation)': (t) => (t.metadata.annotations = { ...t.metadata.annotations, [OperationAnnotations.opened]: OperationAnnotationValues.opened }),
    'opened (plain: unsuspended; Kueue: gate gone)': (t, mode) => {
      if (mode === 'plain') t.spec.suspend = false;
      else delete t.metadata.annotations![Annotations.kueueAdmissionGatedBy];
    },
    'held value other than "true"': (t) => (t.metadata.annotations = { ...t.metadata.annotations, [OperationAnnotations.held]: 'no' }),
    'a label added by someone': (t) => (t.metadata.labels = { ...t.metadata.labels, team: 'a' }),
  };

  it('adopts exactly when the TrainJob is neither opened nor held, whatever else was added', () => {
    fc.assert(
      fc.property(fc.constantFrom<Mode>('plain', 'kueue'), fc.subarray(Object.keys(EDITS)), (mode, edits) => {
        const { trainJob } = rendered(mode);
        const found = serverTrainJob(trainJob, (t) => edits.forEach((e) => EDITS[e]!(t, mode)));
        const reasons = earlierStartReasons(owner(trainJob), found, trainJob, gateConfig(mode));
        const takenOver = isTakenOver(found, gateConfig(mode));
        expect(reasons.length === 0).toBe(!takenOver);
        if (takenOver) expect(reasons).toEqual([expect.stringMatching(/the caller has (opened|held|opened and held) it/)]);
      }),
    );
  });

  it('a held TrainJob still reads back as Start wrote it, and is refused all the same', () => {
    for (const mode of ['plain', 'kueue'] as const) {
      const { trainJob } = rendered(mode);
      const held = serverTrainJob(trainJob, (t) => EDITS.held!(t, mode));
      expect(earlierStartReasons(owner(trainJob), held, trainJob, gateConfig(mode))).toEqual([expect.stringContaining('the caller has held it')]);
    }
  });
});
