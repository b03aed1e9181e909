import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isBeingDeleted } from '../../../../src/core/objects/deletion.js';
import { copyReuseReasons } from '../../../../src/core/start/copy-reuse.js';
import { deepEqual } from '../../../../src/core/objects/deep-equal.js';
import type { TrainerRuntime } from '../../../../src/model/kube.js';

const copy = (spec: Record<string, unknown>, owners: { kind: string; name: string }[] = []): TrainerRuntime => ({
  metadata: {
    namespace: 'ml',
    name: 'dj-x-s1',
    ownerReferences: owners.map((o) => ({ apiVersion: 'trainer.kubeflow.org/v1alpha1', uid: 'u', ...o })),
  },
  spec,
});

describe('docs/start.md, step 5: reuse of a runtime copy found by a retried Start', () => {
  const spec = { mlPolicy: { numNodes: 2 }, template: { spec: { replicatedJobs: [{ name: 'node' }] } } };

  it('reuses a copy with no owner whose spec equals the source runtime', () => {
    expect(copyReuseReasons(copy(structuredClone(spec)), copy(spec))).toEqual([]);
  });

  it('refuses a copy that has an owner, naming it', () => {
    expect(copyReuseReasons(copy(spec, [{ kind: 'TrainJob', name: 'other' }]), copy(spec))).toEqual([
      'runtime copy ml/dj-x-s1 already exists and is owned by TrainJob/other',
    ]);
  });

  it('refuses a copy whose spec differs, and names both reasons at once', () => {
    const changed = { ...spec, mlPolicy: { numNodes: 3 } };
    expect(copyReuseReasons(copy(changed, [{ kind: 'TrainJob', name: 'o' }]), copy(spec))).toHaveLength(2);
  });

  it('sees a deletionTimestamp as being deleted', () => {
    expect(isBeingDeleted({ metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } })).toBe(true);
    expect(isBeingDeleted({ metadata: {} })).toBe(false);
  });
});

describe('deepEqual', () => {
  it('ignores key order and undefined members, and is reflexive on JSON', () => {
    expect(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1, d: undefined })).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual({ a: [] }, { a: {} })).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
    fc.assert(fc.property(fc.jsonValue(), (v) => deepEqual(v, structuredClone(v))));
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => deepEqual(a, b) === (JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b)))),
    );
  });
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}
