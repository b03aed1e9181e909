// The admission check controller's undo (src/core/admission/workload-undo.ts, docs/contract.md §9):
// a `Ready` on a Workload whose TrainJob is held goes back to `Pending` (not yet admitted) or to
// `Retry` (admitted: Kueue evicts it), and nothing else is ever undone. Examples, then properties over
// the Workloads and TrainJobs a pass may read, with the patches applied as the API server would.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readyDecision } from '../../../../src/core/admission/workload-ready.js';
import { readiesToUndo, undoReadyDecision } from '../../../../src/core/admission/workload-undo.js';
import { CheckStates } from '../../../../src/model/constants.js';
import type { TrainJob, Workload } from '../../../../src/model/kube.js';
import { applyJsonPatch, JsonPatchError } from '../../../support/json-patch.js';
import { CRDS, crdValidator } from '../../../support/crd-schema.js';
import { CHECK, condition, KUEUE_CONFIG, NS, OTHER_UID, REF, trainJob, UID, workload } from '../operation-fixtures.js';

const NOW = '2026-01-02T03:04:05Z';
const RESERVED = condition('QuotaReserved', 'True', 'QuotaReserved', 'Quota reserved in ClusterQueue cq');
const ADMITTED = condition('Admitted', 'True', 'Admitted', 'The workload is admitted');

/** A Workload whose dispatch check is Ready, reserved and (unless said) not admitted. */
const readied = (shape: Parameters<typeof workload>[0] = {}) => workload({ check: 'Ready', otherCheck: 'Ready', conditions: [RESERVED], ...shape });
const heldJob = (shape: Parameters<typeof trainJob>[0] = {}) => trainJob({ suspend: true, held: 'true', ...shape });
const stateOf = (w: Workload) => w.status?.admissionChecks?.find((c) => c.name === CHECK)?.state;

describe('undoReadyDecision', () => {
  it('a Ready on a held TrainJob not yet admitted: back to Pending, testing the Workload and the entry', () => {
    const d = undoReadyDecision(readied(), heldJob(), KUEUE_CONFIG, NOW);
    expect(d).toMatchObject({
      action: 'patch',
      write: {
        name: `trainjob-${REF.name}-1a2b3`,
        patch: [
          { op: 'test', path: '/metadata/uid', value: 'wl-uid-1' },
          { op: 'test', path: '/metadata/resourceVersion', value: '200' },
          { op: 'test', path: '/status/admissionChecks/1/name', value: CHECK },
          { op: 'test', path: '/status/admissionChecks/1/state', value: 'Ready' },
          {
            op: 'replace',
            path: '/status/admissionChecks/1',
            value: { name: CHECK, state: 'Pending', message: `TrainJob ml-jobs/${REF.name} is held: back to Pending before Kueue admits it`, lastTransitionTime: NOW },
          },
        ],
        summary: `Workload ml-jobs/trainjob-${REF.name}-1a2b3: admission check dispatch Pending`,
      },
    });
  });

  it('admitted already: Retry, so that Kueue evicts it; what it writes passes the real Kueue v0.19.2 Workload CRD', () => {
    const validate = crdValidator(CRDS.workload, { version: 'v1beta2', unknownRules: 'skip' });
    const wl = readied({ conditions: [RESERVED, ADMITTED] });
    const d = undoReadyDecision(wl, heldJob(), KUEUE_CONFIG, NOW);
    expect(d.action).toBe('patch');
    if (d.action !== 'patch') return;
    const after = applyJsonPatch(wl, d.write.patch);
    expect(stateOf(after)).toBe('Retry');
    expect(validate(after)).toEqual([]);
  });

  it.each([
    ['a TrainJob not held', readied(), trainJob({ suspend: true }), /is not held/],
    ['a TrainJob whose held annotation is not "true"', readied(), heldJob({ held: 'false' }), /is not held/],
    ['no TrainJob read (gone)', readied(), undefined, /no TrainJob of UID/],
    ['a TrainJob of another UID', readied(), heldJob({ uid: OTHER_UID }), /no TrainJob of UID/],
    ['a check still Pending', readied({ check: 'Pending' }), heldJob(), /is "Pending", not Ready/],
    ['a check Retry already', readied({ check: 'Retry' }), heldJob(), /is "Retry", not Ready/],
    ['a check Rejected', readied({ check: 'Rejected' }), heldJob(), /is "Rejected"/],
    ['no entry of the check', readied({ check: undefined }), heldJob(), /is undefined, not Ready/],
    ['an inactive Workload (the Hold got there: Kueue evicts it)', readied({ active: false }), heldJob(), /spec.active is false/],
    ['a finished Workload', readied({ conditions: [RESERVED, ADMITTED, condition('Finished', 'True', 'Succeeded')] }), heldJob(), /Finished is True/],
    ['a Workload being deleted', readied({ deleting: true }), heldJob(), /being deleted/],
    ['a Workload of another namespace', readied({ namespace: 'elsewhere' }), heldJob(), /not in namespace/],
  ] as [string, Workload, TrainJob | undefined, RegExp][])('none for %s', (_, wl, tj, reason) => {
    expect(undoReadyDecision(wl, tj, KUEUE_CONFIG, NOW)).toEqual({ action: 'none', reason: expect.stringMatching(reason) });
  });
});

describe('the undo, over what a pass may read', () => {
  const arbCase = fc.record({
    check: fc.constantFrom(undefined, 'Pending', 'Ready', 'Ready', 'Ready', 'Retry', 'Rejected'),
    admitted: fc.boolean(),
    active: fc.constantFrom(true, undefined, false),
    finished: fc.boolean(),
    deleting: fc.boolean(),
    elsewhere: fc.boolean(),
    held: fc.constantFrom(undefined, 'true', 'true', 'false'),
    trainJob: fc.constantFrom('read', 'read', 'read', 'absent', 'other-uid'),
    rv: fc.integer({ min: 1, max: 999 }).map(String),
  });
  type Case = typeof arbCase extends fc.Arbitrary<infer T> ? T : never;
  const build = (c: Case) => {
    const wl = workload({
      rv: c.rv,
      check: c.check,
      otherCheck: 'Ready',
      conditions: [RESERVED, ...(c.admitted ? [ADMITTED] : []), ...(c.finished ? [condition('Finished', 'True', 'Succeeded')] : [])],
      ...(c.active !== undefined ? { active: c.active } : {}),
      deleting: c.deleting,
      namespace: c.elsewhere ? 'elsewhere' : NS,
    });
    const tj =
      c.trainJob === 'absent'
        ? undefined
        : trainJob({ suspend: true, uid: c.trainJob === 'other-uid' ? OTHER_UID : UID, ...(c.held !== undefined ? { held: c.held } : {}) });
    return { wl, tj };
  };

  it('undoes exactly a Ready, on an active, unfinished Workload of the namespace, whose TrainJob of that UID is held: to Retry iff admitted', () => {
    fc.assert(
      fc.property(arbCase, (c) => {
        const { wl, tj } = build(c);
        const d = undoReadyDecision(wl, tj, KUEUE_CONFIG, NOW);
        const expected =
          c.check === 'Ready' && c.active !== false && !c.finished && !c.deleting && !c.elsewhere && c.trainJob === 'read' && c.held === 'true';
        expect(d.action).toBe(expected ? 'patch' : 'none');
        if (d.action !== 'patch') return;
        const after = applyJsonPatch(wl, d.write.patch);
        expect(stateOf(after)).toBe(c.admitted ? CheckStates.retry : CheckStates.pending);
        // Only dispatch's entry changes.
        const others = (w: Workload) => ({ ...w, status: { ...w.status, admissionChecks: w.status?.admissionChecks?.filter((e) => e.name !== CHECK) } });
        expect(others(after)).toEqual(others(wl));
        // Written on a Workload changed since it was read (Kueue admitting it): it fails its test.
        expect(() => applyJsonPatch({ ...wl, metadata: { ...wl.metadata, resourceVersion: `${c.rv}0` } }, d.write.patch)).toThrow(JsonPatchError);
      }),
    );
  });

  it('undone to Pending, the Workload is not marked again while its TrainJob is held, and is once it is released', () => {
    fc.assert(
      fc.property(arbCase, (c) => {
        const { wl, tj } = build({ ...c, check: 'Ready', admitted: false, active: true, finished: false, deleting: false, elsewhere: false, trainJob: 'read', held: 'true' });
        const d = undoReadyDecision(wl, tj, KUEUE_CONFIG, NOW);
        if (d.action !== 'patch') throw new Error(d.reason);
        const undone = applyJsonPatch(wl, d.write.patch);
        expect(readyDecision(undone, tj, KUEUE_CONFIG, NOW).action).toBe('none');
        const released = { ...tj!, metadata: { ...tj!.metadata, annotations: {} } };
        expect(readyDecision(undone, released, KUEUE_CONFIG, NOW).action).toBe('patch');
      }),
    );
  });

  it('readiesToUndo picks, among the Workloads read, those undoReadyDecision undoes with their TrainJob as read', () => {
    const held = heldJob();
    const other = trainJob({ suspend: true, uid: OTHER_UID });
    const workloads = [
      { ...readied({ name: 'a' }), metadata: { ...readied({ name: 'a' }).metadata, uid: 'wl-a' } },
      { ...readied({ name: 'b', jobUid: OTHER_UID }), metadata: { ...readied({ name: 'b', jobUid: OTHER_UID }).metadata, uid: 'wl-b' } },
      { ...readied({ name: 'c', jobUid: 'nobody' }), metadata: { ...readied({ name: 'c', jobUid: 'nobody' }).metadata, uid: 'wl-c' } },
    ];
    const picked = readiesToUndo(workloads, { [UID]: held, [OTHER_UID]: other }, KUEUE_CONFIG, NOW);
    expect(picked.map((p) => [p.workload.metadata?.name, p.trainJob.metadata.uid])).toEqual([['a', UID]]);
    expect(picked[0]!.write.summary).toContain('Pending');
  });
});
