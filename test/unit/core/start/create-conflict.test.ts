// The create-on-409 decision of steps 5 and 6 (src/core/start/create-conflict.ts), over generated
// observations: whatever the read after the 409 saw, and whichever step's rule applies.
import fc from 'fast-check';
import { assertReaching } from '../reached.js';
import { describe, expect, it } from 'vitest';
import { decideConflict, refersTo, type Conflict, type ConflictRule } from '../../../../src/core/start/create-conflict.js';
import { deepEqual } from '../../../../src/core/objects/deep-equal.js';
import { Annotations, Trainer } from '../../../../src/model/constants.js';
import type { KubeObject } from '../../../../src/model/kube.js';

const WHERE = 'TrainJob ml/dj-x-s1';
const COPY = 'dj-x-s1';

/** Few values each, so that generated objects often share a token, a spec or the copy's name. */
const token = fc.constantFrom('ml/dj-x-s1/1', 'ml/dj-x-s1/2', 'other/dj-x-s1/1');
const spec = fc.constantFrom({ mlPolicy: { numNodes: 1 } }, { mlPolicy: { numNodes: 2 } }, {});
const owners = fc.array(
  fc.record({ apiVersion: fc.constant(Trainer.apiVersion), kind: fc.constant(Trainer.trainJobKind), name: fc.constantFrom('a', 'b'), uid: fc.uuid() }),
  { maxLength: 2 },
);
const runtimeRef = fc.record({
  apiGroup: fc.constant(Trainer.group),
  kind: fc.constantFrom(Trainer.trainingRuntimeKind, 'ClusterTrainingRuntime'),
  name: fc.constantFrom(COPY, 'torch'),
});

/** An object of the name as a read could answer it: any mix of token, owners, deletion and spec. */
const existing: fc.Arbitrary<KubeObject> = fc
  .record(
    {
      uid: fc.uuid(),
      token,
      deletionTimestamp: fc.constant('2026-01-01T00:00:00Z'),
      ownerReferences: owners,
      spec,
      runtimeRef,
    },
    { requiredKeys: ['uid'] },
  )
  .map(({ uid, token: theirs, deletionTimestamp, ownerReferences, spec: s, runtimeRef: ref }) => ({
    metadata: {
      namespace: 'ml',
      name: COPY,
      uid,
      ...(theirs !== undefined ? { annotations: { [Annotations.attemptToken]: theirs } } : {}),
      ...(deletionTimestamp !== undefined ? { deletionTimestamp } : {}),
      ...(ownerReferences !== undefined ? { ownerReferences } : {}),
    },
    spec: { ...(s ?? {}), ...(ref ? { runtimeRef: ref } : {}) },
  }));

const sameToken = fc.record({
  adopt: fc.constant('same-token' as const),
  token: fc.option(token, { nil: undefined }),
  copyName: fc.constantFrom(COPY, 'dj-y-s1'),
});
const unownedSameSpec = spec.map((s) => ({ adopt: 'unowned-same-spec' as const, wanted: { metadata: { namespace: 'ml', name: COPY }, spec: s } }));
const rule: fc.Arbitrary<ConflictRule> = fc.oneof(sameToken, unownedSameSpec);

const conflict = (existing: KubeObject | undefined, r: ConflictRule): Conflict => ({ where: WHERE, existing, rule: r });
const beingDeleted = (object: KubeObject) => object.metadata?.deletionTimestamp !== undefined;
const live = existing.filter((object) => !beingDeleted(object));
const tokenOf = (object: KubeObject) => object.metadata?.annotations?.[Annotations.attemptToken];
const ownersOf = (object: KubeObject) => object.metadata?.ownerReferences ?? [];

describe('decideConflict: what a create does after its 409', () => {
  // How many generated cases must reach each filtered property's assertions, or each branch of one
  // that asserts two ways (../reached.ts): 50, as in the operations' plans (a kind of input making a
  // tenth of them is missed with a chance under 0.6%). fc.pre draws again for each case it skips,
  // so those reach all their 100. Of 100 cases, about 21 are this attempt's TrainJob and 2-6 a
  // reusable copy (measured: 56-84 of 3,000), so those two properties run 1,000 and 8,000 cases.
  const MIN = 50;
  it('an object gone again (404) is always created again, whatever the rule', () => {
    fc.assert(
      fc.property(rule, (r) => {
        expect(decideConflict(conflict(undefined, r))).toEqual({ do: 'retry' });
      }),
    );
  });

  it('an object being deleted is always waited for, whatever it carries and the rule', () => {
    fc.assert(
      fc.property(existing.filter(beingDeleted), rule, (object, r) => {
        expect(decideConflict(conflict(object, r))).toEqual({ do: 'wait', reason: `${WHERE} to finish deleting` });
      }),
    );
  });

  it("step 6 adopts exactly the live TrainJobs carrying this attempt's token, by their UID", () => {
    assertReaching({ ours: MIN, others: MIN }, (reached) =>
      fc.property(live, sameToken, (object, r) => {
        const decision = decideConflict(conflict(object, r));
        const ours = r.token !== undefined && tokenOf(object) === r.token;
        reached(ours ? 'ours' : 'others');
        if (ours) expect(decision).toEqual({ do: 'adopt', uid: object.metadata!.uid });
        else expect(decision.do).toBe('refuse');
      }),
      { numRuns: 1000 },
    );
  });

  it('step 6 never adopts an object with another token, or with none', () => {
    assertReaching(MIN, (reached) =>
      fc.property(existing, sameToken, (object, r) => {
        fc.pre(tokenOf(object) !== r.token || r.token === undefined);
        reached();
        expect(decideConflict(conflict(object, r)).do).not.toBe('adopt');
      }),
    );
  });

  it("step 6 refuses another attempt's TrainJob with ErrRejected naming both tokens; keeps the copy only if that TrainJob runs on it", () => {
    assertReaching(MIN, (reached) =>
      fc.property(live, sameToken, (object, r) => {
        const decision = decideConflict(conflict(object, r));
        fc.pre(decision.do === 'refuse');
        if (decision.do !== 'refuse') return;
        reached();
        expect(decision.type).toBe('ErrRejected');
        expect(decision.reasons).toEqual([
          `${WHERE} already exists with attempt token ${tokenOf(object) ?? '(none)'}; this attempt's is ${r.token}`,
        ]);
        const runsOnCopy = (object.spec as { runtimeRef?: { kind: string; name: string } }).runtimeRef;
        expect(decision.keepCopy).toBe(runsOnCopy?.kind === Trainer.trainingRuntimeKind && runsOnCopy.name === r.copyName);
      }),
    );
  });

  it('step 5 reuses exactly the live copies with no owner and the wanted spec', () => {
    assertReaching({ reusable: MIN, refused: MIN }, (reached) =>
      fc.property(live, unownedSameSpec, (object, r) => {
        const decision = decideConflict(conflict(object, r));
        const reusable = ownersOf(object).length === 0 && deepEqual(object.spec, r.wanted.spec);
        reached(reusable ? 'reusable' : 'refused');
        if (reusable) expect(decision).toEqual({ do: 'adopt', uid: object.metadata!.uid });
        else {
          expect(decision).toMatchObject({ do: 'refuse', type: 'ErrRejected' });
          expect(decision.do === 'refuse' && decision.reasons.length).toBeGreaterThan(0);
          expect(decision).not.toHaveProperty('keepCopy');
        }
      }),
      { numRuns: 8000 },
    );
  });

  it('step 5 never reuses a copy that has an owner, and names the owner', () => {
    fc.assert(
      fc.property(live.filter((object) => ownersOf(object).length > 0), unownedSameSpec, (object, r) => {
        const decision = decideConflict(conflict(object, r));
        expect(decision.do).toBe('refuse');
        const named = ownersOf(object).map((o) => `${o.kind}/${o.name}`).join(', ');
        expect(decision.do === 'refuse' && decision.reasons.some((reason) => reason.endsWith(`owned by ${named}`))).toBe(true);
      }),
    );
  });

  it('step 5 ignores tokens, and step 6 ignores owners and spec', () => {
    fc.assert(
      fc.property(live, unownedSameSpec, token, (object, r, other) => {
        const retokened = { ...object, metadata: { ...object.metadata, annotations: { [Annotations.attemptToken]: other } } };
        expect(decideConflict(conflict(retokened, r))).toEqual(decideConflict(conflict(object, r)));
      }),
    );
    fc.assert(
      fc.property(live, sameToken, owners, spec, (object, r, otherOwners, otherSpec) => {
        const ref = (object.spec as { runtimeRef?: unknown }).runtimeRef;
        const changed = {
          ...object,
          metadata: { ...object.metadata, ownerReferences: otherOwners },
          spec: { ...otherSpec, ...(ref ? { runtimeRef: ref } : {}) },
        };
        expect(decideConflict(conflict(changed, r))).toEqual(decideConflict(conflict(object, r)));
      }),
    );
  });
});

describe('refersTo', () => {
  it('is a TrainingRuntime reference of the copy name, nothing else', () => {
    const job = (kind: string, name: string) => ({ spec: { runtimeRef: { apiGroup: Trainer.group, kind, name } } });
    expect(refersTo(job(Trainer.trainingRuntimeKind, COPY), COPY)).toBe(true);
    expect(refersTo(job('ClusterTrainingRuntime', COPY), COPY)).toBe(false);
    expect(refersTo(job(Trainer.trainingRuntimeKind, 'torch'), COPY)).toBe(false);
    expect(refersTo({ metadata: {} }, COPY)).toBe(false);
  });
});
