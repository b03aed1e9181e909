// What the compensation deletes (src/core/stop-plan.ts), over generated states and clusters: the
// whole stop is replayed as the activity runs it (targets, then a lookup for each unknown UID), and
// what it would delete is checked against what it may.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideLookedUp, stopTargets, type StopObject, type StopState } from '../../../src/core/stop-plan.js';
import { Annotations } from '../../../src/model/constants.js';
import type { KubeObject } from '../../../src/model/kube.js';

const TOKEN = 'ml/dj-x-s1/1';
const token = fc.constantFrom(TOKEN, 'ml/dj-x-s1/2', '');
const uid = fc.constantFrom('uid-a', 'uid-b', 'uid-c');

const state: fc.Arbitrary<StopState> = fc.record(
  { trainJobUid: uid, copyUid: uid, ownerSet: fc.boolean() },
  { requiredKeys: ['ownerSet'] },
);

/** An object of the name found by a lookup: any token or none, owners or none. */
const found: fc.Arbitrary<KubeObject> = fc
  .record({ uid, token: fc.option(token, { nil: undefined }), owned: fc.boolean() })
  .map(({ uid: u, token: t, owned }) => ({
    metadata: {
      uid: u,
      ...(t !== undefined ? { annotations: { [Annotations.attemptToken]: t } } : {}),
      ...(owned ? { ownerReferences: [{ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', name: 'o', uid: 'o' }] } : {}),
    },
  }));
/** What a lookup of each kind would see: an object, or nothing (404). */
const cluster = fc.record({
  trainJob: fc.option(found, { nil: undefined }),
  copy: fc.option(found, { nil: undefined }),
});

const tokenOf = (object: KubeObject) => object.metadata?.annotations?.[Annotations.attemptToken];
const owned = (object: KubeObject) => (object.metadata?.ownerReferences ?? []).length > 0;

interface Deletion {
  object: StopObject;
  uid: string;
  byLookup: boolean;
}

/** The deletions the stop makes, as stopTrainJob makes them. */
function replay(s: StopState, world: Record<StopObject, KubeObject | undefined>): Deletion[] {
  return stopTargets(s).flatMap((target): Deletion[] => {
    if (target.uid) return [{ object: target.object, uid: target.uid, byLookup: false }];
    const decision = decideLookedUp(target.object, world[target.object], TOKEN);
    return decision.delete ? [{ object: target.object, uid: decision.uid, byLookup: true }] : [];
  });
}

describe('stopTargets', () => {
  it('the TrainJob always, first; the copy exactly when its owner was never set; each by its known UID', () => {
    fc.assert(
      fc.property(state, (s) => {
        const targets = stopTargets(s);
        expect(targets[0]).toEqual({ object: 'trainJob', ...(s.trainJobUid ? { uid: s.trainJobUid } : {}) });
        expect(targets.map((t) => t.object)).toEqual(s.ownerSet ? ['trainJob'] : ['trainJob', 'copy']);
        if (!s.ownerSet) expect(targets[1]).toEqual({ object: 'copy', ...(s.copyUid ? { uid: s.copyUid } : {}) });
      }),
    );
  });

  it('an empty UID counts as unknown (looked up), never as a UID to delete by', () => {
    expect(stopTargets({ trainJobUid: '', copyUid: '', ownerSet: false })).toEqual([{ object: 'trainJob' }, { object: 'copy' }]);
  });
});

describe('decideLookedUp and the whole stop', () => {
  it('never deletes, by lookup, an object without this attempt token', () => {
    fc.assert(
      fc.property(state, cluster, (s, world) => {
        for (const d of replay(s, world).filter((d) => d.byLookup)) expect(tokenOf(world[d.object]!)).toBe(TOKEN);
      }),
    );
  });

  it('never deletes, by lookup, a copy that has an owner', () => {
    fc.assert(
      fc.property(fc.constantFrom<StopObject>('trainJob', 'copy'), found, (object, f) => {
        fc.pre(object === 'copy' && owned(f));
        expect(decideLookedUp(object, f, TOKEN)).toEqual({ delete: false });
      }),
    );
  });

  it('deletes, by lookup, exactly our TrainJob (owned or not) and our unowned copy, by the UID it carries', () => {
    fc.assert(
      fc.property(fc.constantFrom<StopObject>('trainJob', 'copy'), found, (object, f) => {
        const ours = tokenOf(f) === TOKEN && (object === 'trainJob' || !owned(f));
        expect(decideLookedUp(object, f, TOKEN)).toEqual(ours ? { delete: true, uid: f.metadata!.uid } : { delete: false });
      }),
    );
  });

  it('an object gone (404) is never deleted', () => {
    fc.assert(
      fc.property(fc.constantFrom<StopObject>('trainJob', 'copy'), (object) => {
        expect(decideLookedUp(object, undefined, TOKEN)).toEqual({ delete: false });
      }),
    );
  });

  it('a known UID is deleted by that UID without a lookup; the copy is never touched once its owner is set', () => {
    fc.assert(
      fc.property(state, cluster, (s, world) => {
        const deletions = replay(s, world);
        const known = { trainJob: s.trainJobUid, copy: s.copyUid };
        for (const d of deletions) if (known[d.object]) expect(d).toEqual({ object: d.object, uid: known[d.object], byLookup: false });
        if (s.ownerSet) expect(deletions.map((d) => d.object)).not.toContain('copy');
        expect(new Set(deletions.map((d) => d.object)).size).toBe(deletions.length);
      }),
    );
  });
});
