// The collection of worker clusters' runtime copies (src/core/start/collect-copies.ts): a copy goes
// only when it is dispatch's, carries an attempt token, has no owner, is not being deleted, is older
// than the grace, and the manager holds neither the copy nor the TrainJob of that attempt.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideWorkerCopy, type CopyFacts } from '../../../../src/core/start/collect-copies.js';
import { Annotations, Labels, LabelValues } from '../../../../src/model/constants.js';
import type { KubeObject } from '../../../../src/model/kube.js';

const TOKENS = ['1-aaaaaaaaaaaa', '2-bbbbbbbbbbbb'];
const GRACE = 30_000;

const objectArb = (kind: 'copy' | 'manager'): fc.Arbitrary<KubeObject> =>
  fc
    .record({
      token: fc.constantFrom(undefined, ...TOKENS),
      ours: kind === 'copy' ? fc.constantFrom(true, true, true, false) : fc.constant(true),
      owned: kind === 'copy' ? fc.constantFrom(false, false, true) : fc.constant(true),
      deleting: kind === 'copy' ? fc.constantFrom(false, false, false, true) : fc.constant(false),
      rv: fc.constantFrom(undefined, '7'),
    })
    .map(({ token, ours, owned, deleting, rv }) => ({
      metadata: {
        name: 'dj-x-s1',
        namespace: 'ml',
        uid: `${kind}-uid`,
        ...(rv ? { resourceVersion: rv } : {}),
        labels: (ours ? { [Labels.managedBy]: LabelValues.managedBy } : {}) as Record<string, string>,
        annotations: (token ? { [Annotations.attemptToken]: token } : {}) as Record<string, string>,
        ...(owned ? { ownerReferences: [{ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', name: 'dj-x-s1', uid: 'j' }] } : {}),
        ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      },
    }));

const factsArb: fc.Arbitrary<CopyFacts> = fc.record({
  copy: objectArb('copy'),
  managerCopy: fc.option(objectArb('manager'), { nil: undefined }),
  managerTrainJob: fc.option(objectArb('manager'), { nil: undefined }),
  ageMs: fc.option(fc.integer({ min: -1_000, max: 3 * GRACE }), { nil: undefined }),
  graceMs: fc.constant(GRACE),
});

const token = (o: KubeObject | undefined) => o?.metadata?.annotations?.[Annotations.attemptToken];

describe('decideWorkerCopy', () => {
  it('property: deletes exactly an unowned, aged copy of dispatch with a token whose attempt the manager no longer holds, by its UID and resourceVersion', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        const { copy } = facts;
        const t = token(copy);
        const collectable =
          copy.metadata?.labels?.[Labels.managedBy] === LabelValues.managedBy &&
          t !== undefined &&
          !copy.metadata?.ownerReferences?.length &&
          copy.metadata?.deletionTimestamp === undefined &&
          facts.ageMs !== undefined &&
          facts.ageMs >= GRACE &&
          token(facts.managerCopy) !== t &&
          token(facts.managerTrainJob) !== t;
        const decision = decideWorkerCopy(facts);
        expect(decision.do).toBe(collectable ? 'delete' : 'keep');
        if (decision.do === 'delete') expect(decision).toEqual({ do: 'delete', uid: 'copy-uid', ...(copy.metadata?.resourceVersion ? { resourceVersion: '7' } : {}) });
      }),
    );
  });

  it('says why a copy is kept', () => {
    const copy = { metadata: { uid: 'u', labels: { [Labels.managedBy]: LabelValues.managedBy }, annotations: { [Annotations.attemptToken]: TOKENS[0]! } } };
    expect(decideWorkerCopy({ copy, managerCopy: copy, managerTrainJob: undefined, ageMs: GRACE, graceMs: GRACE })).toEqual({ do: 'keep', reason: "the manager holds its attempt's copy" });
    expect(decideWorkerCopy({ copy, managerCopy: undefined, managerTrainJob: copy, ageMs: GRACE, graceMs: GRACE })).toEqual({ do: 'keep', reason: "the manager holds its attempt's TrainJob" });
    expect(decideWorkerCopy({ copy, managerCopy: undefined, managerTrainJob: undefined, ageMs: GRACE - 1, graceMs: GRACE })).toMatchObject({ do: 'keep', reason: expect.stringMatching(/younger than the grace/) });
  });
});
