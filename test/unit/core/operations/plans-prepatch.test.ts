// The plans of Open, Hold and Release from before the patch `operations-declarative`
// (src/core/operations/plans-prepatch.ts), which the runs begun before it replay: unchanged. The writes a
// plan makes are applied as the API server would (applyJsonPatch, resourceVersion bumped per
// write), and the result planned again: examples of the exact patches, then properties over
// every combination of what may be read.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pointer } from '../../../../src/core/objects/json-patch.js';
import type { PlannedWrite } from '../../../../src/core/objects/planned-write.js';
import type { TrainJobChange, OperationPlan } from '../../../../src/core/operations/plan.js';
import { applyJsonPatch, JsonPatchError } from '../../../support/json-patch.js';
import {
  identityRefusalsPrePatch as identityRefusals,
  planHoldPrePatch as planHold,
  planOpenPrePatch as planOpen,
  planOperationPrePatch as planOperation,
  planReleasePrePatch as planRelease,
} from '../../../../src/core/operations/plans-prepatch.js';
import { kueueDeactivation } from '../../../../src/core/objects/workloads.js';
import type { Observed } from '../../../../src/core/operations/observed.js';
import { phaseOf } from '../../../../src/core/operations/phase.js';
import { gatesOf } from '../../../../src/core/objects/gates.js';
import { Annotations, Labels } from '../../../../src/model/constants.js';
import { OperationAnnotations } from '../../../../src/model/constants.js';
import type { TrainJob, Workload } from '../../../../src/model/kube.js';
import { assertReaching } from '../reached.js';
import {
  arbObserved,
  condition,
  GATE,
  KUEUE_CONFIG,
  OTHER_UID,
  PLAIN,
  REF,
  T1,
  trainJob,
  workload,
} from '../operation-fixtures.js';

// Only a fraction of what may be read leads to writes: more runs than the default, still well under a second.
fc.configureGlobal({ numRuns: 500 });

const HELD_PATH = '/metadata/annotations/dispatch.phpboyscout.uk~1held';
const GATED_PATH = '/metadata/annotations/kueue.x-k8s.io~1admission-gated-by';
const TJ_PRE = [
  { op: 'test', path: '/metadata/uid', value: REF.uid },
  { op: 'test', path: '/metadata/resourceVersion', value: '100' },
];
const WL_PRE = [
  { op: 'test', path: '/metadata/uid', value: 'wl-uid-1' },
  { op: 'test', path: '/metadata/resourceVersion', value: '200' },
];
const OPS: TrainJobChange[] = ['open', 'hold', 'release'];

const bump = <T extends TrainJob | Workload>(object: T): T => ({
  ...object,
  metadata: {
    ...object.metadata,
    resourceVersion: String(Number(object.metadata?.resourceVersion ?? '0') + 1),
  },
});

/** The objects after one write, as the API server makes it: the patch, then a new resourceVersion. */
function applyWrite(observed: Observed, write: PlannedWrite): Observed {
  if (write.kind === 'TrainJob') {
    if (observed.trainJob === undefined) throw new Error('a write to a TrainJob that was not read');
    return { ...observed, trainJob: bump(applyJsonPatch(observed.trainJob, write.patch)) };
  }
  if (observed.workload === undefined) throw new Error('a write to a Workload that was not read');
  return { ...observed, workload: bump(applyJsonPatch(observed.workload, write.patch)) };
}

const applyAll = (observed: Observed, writes: PlannedWrite[]) => writes.reduce(applyWrite, observed);

/** The workflow's loop: plan, write, plan again (resumed), until the plan is not `write`. */
function run(
  op: TrainJobChange,
  observed: Observed,
): { first: OperationPlan; last: OperationPlan; world: Observed; rounds: number } {
  const first = planOperation(op, REF, observed);
  let plan = first;
  let world = observed;
  let rounds = 0;
  while (plan.kind === 'write') {
    rounds += 1;
    if (rounds > 3) throw new Error(`${op} does not converge`);
    world = applyAll(world, plan.writes);
    plan = planOperation(op, REF, world, { resumed: true });
  }
  return { first, last: plan, world, rounds };
}

const plainJob = (shape: Parameters<typeof trainJob>[0] = {}): Observed => ({
  trainJob: trainJob({ suspend: true, ...shape }),
  config: PLAIN,
});
const kueueJob = (
  shape: Parameters<typeof trainJob>[0] = {},
  wl: Workload | null = workload({ active: true, check: 'Pending' }),
): Observed => ({
  trainJob: trainJob({ suspend: true, gatedBy: GATE, ...shape }),
  ...(wl ? { workload: wl } : {}),
  config: KUEUE_CONFIG,
});

const writesOf = (plan: OperationPlan) => (plan.kind === 'write' ? plan.writes : []);

describe('planOpen', () => {
  it('plain: spec.suspend false on a Gated TrainJob', () => {
    const plan = planOpen(REF, plainJob());
    expect(plan).toMatchObject({ kind: 'write', state: { phase: 'Gated' } });
    expect(writesOf(plan)).toEqual([
      {
        kind: 'TrainJob',
        namespace: 'ml-jobs',
        name: REF.name,
        uid: REF.uid,
        patch: [...TJ_PRE, { op: 'replace', path: '/spec/suspend', value: false }],
        summary: `TrainJob ml-jobs/${REF.name}: spec.suspend false`,
      },
    ]);
  });

  it('plain: nothing to do when running, or held (Release opens a held one)', () => {
    expect(planOpen(REF, plainJob({ suspend: false }))).toMatchObject({
      kind: 'done',
      state: { phase: 'Running' },
    });
    expect(planOpen(REF, plainJob({ held: 'true' }))).toMatchObject({
      kind: 'done',
      state: { phase: 'Held', held: true },
    });
  });

  it("Kueue: dispatch's gate out of admission-gated-by, the other gates kept in order, the annotation removed when empty", () => {
    expect(writesOf(planOpen(REF, kueueJob()))[0]?.patch).toEqual([
      ...TJ_PRE,
      { op: 'remove', path: GATED_PATH },
    ]);
    const among = planOpen(REF, kueueJob({ gatedBy: `a.example.com/x, ${GATE} ,b.example.com/y` }));
    expect(writesOf(among)[0]?.patch).toEqual([
      ...TJ_PRE,
      { op: 'replace', path: GATED_PATH, value: 'a.example.com/x,b.example.com/y' },
    ]);
  });

  it('Kueue: removes the gate of a held TrainJob too (the inactive Workload still holds it); nothing to do without the gate', () => {
    const held = planOpen(REF, kueueJob({ held: 'true' }, workload({ active: false })));
    expect(held).toMatchObject({ kind: 'write', state: { phase: 'Held' } });
    expect(planOpen(REF, kueueJob({ gatedBy: 'example.com/other' }))).toMatchObject({
      kind: 'done',
      state: { phase: 'Queued' },
    });
  });
});

describe('planHold', () => {
  it('plain: spec.suspend true and the held annotation in one patch', () => {
    const plan = planHold(REF, plainJob({ suspend: false }));
    expect(writesOf(plan)).toEqual([
      expect.objectContaining({
        kind: 'TrainJob',
        patch: [
          ...TJ_PRE,
          { op: 'replace', path: '/spec/suspend', value: true },
          { op: 'add', path: HELD_PATH, value: 'true' },
        ],
        summary: `TrainJob ml-jobs/${REF.name}: spec.suspend true, annotation dispatch.phpboyscout.uk/held: "true"`,
      }),
    ]);
    // A held annotation of another value is replaced; a missing annotations map is added whole.
    expect(writesOf(planHold(REF, plainJob({ held: 'false' })))[0]?.patch).toEqual([
      ...TJ_PRE,
      { op: 'replace', path: HELD_PATH, value: 'true' },
    ]);
    const bare = trainJob({ suspend: true });
    delete bare.metadata.annotations;
    expect(writesOf(planHold(REF, { trainJob: bare, config: PLAIN }))[0]?.patch).toEqual([
      ...TJ_PRE,
      { op: 'add', path: '/metadata/annotations', value: { [OperationAnnotations.held]: 'true' } },
    ]);
  });

  it('Kueue: the held annotation, then the Workload spec.active false', () => {
    const plan = planHold(REF, kueueJob({ gatedBy: 'example.com/other' }, workload({ check: 'Pending' })));
    expect(writesOf(plan)).toEqual([
      expect.objectContaining({
        kind: 'TrainJob',
        patch: [...TJ_PRE, { op: 'add', path: HELD_PATH, value: 'true' }],
      }),
      expect.objectContaining({
        kind: 'Workload',
        name: `trainjob-${REF.name}-1a2b3`,
        uid: 'wl-uid-1',
        patch: [...WL_PRE, { op: 'add', path: '/spec/active', value: false }],
      }),
    ]);
    const active = planHold(REF, kueueJob({ held: 'true' }, workload({ active: true })));
    expect(writesOf(active).map((w) => w.patch)).toEqual([
      [...WL_PRE, { op: 'replace', path: '/spec/active', value: false }],
    ]);
  });

  it('Kueue without a Workload yet: the held annotation, then a wait for Kueue to make it', () => {
    const observed = kueueJob({}, null);
    const first = planHold(REF, observed);
    expect(writesOf(first).map((w) => w.kind)).toEqual(['TrainJob']);
    const after = planHold(REF, applyAll(observed, writesOf(first)), { resumed: true });
    expect(after).toMatchObject({
      kind: 'wait',
      state: { phase: 'Held' },
      reasons: [expect.stringMatching(/no Workload/)],
    });
  });

  it('nothing to do once held', () => {
    expect(planHold(REF, plainJob({ held: 'true' }))).toMatchObject({
      kind: 'done',
      state: { phase: 'Held' },
    });
    expect(planHold(REF, kueueJob({ held: 'true' }, workload({ active: false })))).toMatchObject({
      kind: 'done',
    });
  });
});

describe('planRelease', () => {
  it('plain: spec.suspend false and the held annotation removed in one patch', () => {
    expect(writesOf(planRelease(REF, plainJob({ held: 'true' })))[0]?.patch).toEqual([
      ...TJ_PRE,
      { op: 'replace', path: '/spec/suspend', value: false },
      { op: 'remove', path: HELD_PATH },
    ]);
  });

  it('Kueue: the held annotation removed, then the Workload spec.active true', () => {
    const plan = planRelease(REF, kueueJob({ held: 'true' }, workload({ active: false })));
    expect(writesOf(plan).map((w) => [w.kind, w.patch])).toEqual([
      ['TrainJob', [...TJ_PRE, { op: 'remove', path: HELD_PATH }]],
      ['Workload', [...WL_PRE, { op: 'replace', path: '/spec/active', value: true }]],
    ]);
  });

  it('Kueue: a Release interrupted between its writes finishes with the Workload alone', () => {
    const plan = planRelease(
      REF,
      kueueJob({}, workload({ active: false, conditions: [condition('Evicted', 'True', 'Deactivated')] })),
    );
    expect(writesOf(plan).map((w) => w.kind)).toEqual(['Workload']);
  });

  it("Kueue: a Workload Kueue deactivated itself stays inactive; the TrainJob then reads Failed, the Release's answer", () => {
    const byKueue = workload({
      active: false,
      conditions: [condition('Evicted', 'True', 'DeactivatedDueToRequeuingLimitExceeded')],
    });
    const { first, last } = run('release', kueueJob({ held: 'true' }, byKueue));
    expect(writesOf(first).map((w) => w.kind)).toEqual(['TrainJob']);
    expect(last).toMatchObject({ kind: 'done', state: { phase: 'Failed', held: false } });
  });

  it('refuses a TrainJob that is not held, saying what it is', () => {
    expect(planRelease(REF, plainJob({ suspend: false }))).toEqual({
      kind: 'refuse',
      reasons: [
        `Release of TrainJob ml-jobs/${REF.name}: it is not held (it is Running)`,
        expect.any(String),
      ],
    });
    expect(planRelease(REF, kueueJob())).toMatchObject({ kind: 'refuse' });
  });
});

describe('every operation', () => {
  it.each(OPS)('%s answers Absent for a TrainJob gone or being deleted', (op) => {
    expect(planOperation(op, REF, { config: PLAIN })).toMatchObject({
      kind: 'absent',
      state: { ref: REF, phase: 'Absent' },
    });
    expect(planOperation(op, REF, plainJob({ deleting: true, held: 'true' }))).toMatchObject({
      kind: 'absent',
    });
  });

  it.each(OPS)('%s refuses a TrainJob that has ended, and answers it once this run has written', (op) => {
    const ended = kueueJob({
      held: 'true',
      conditions: [condition('Complete', 'True', 'AllJobsCompleted', '', T1)],
    });
    expect(planOperation(op, REF, ended)).toEqual({
      kind: 'refuse',
      reasons: [
        `${op[0]?.toUpperCase()}${op.slice(1)} of TrainJob ml-jobs/${REF.name}: it has Succeeded`,
        expect.any(String),
      ],
    });
    expect(planOperation(op, REF, ended, { resumed: true })).toMatchObject({
      kind: 'done',
      state: { phase: 'Succeeded' },
    });
  });

  it.each(OPS)(
    '%s refuses another UID, another namespace, or a TrainJob without dispatch’s labels, writing nothing',
    (op) => {
      expect(planOperation(op, REF, plainJob({ uid: OTHER_UID }))).toEqual({
        kind: 'refuse',
        reasons: [expect.stringContaining(`has UID ${OTHER_UID}, not ${REF.uid}`)],
      });
      expect(planOperation(op, { ...REF, namespace: 'elsewhere' }, { config: PLAIN })).toEqual({
        kind: 'refuse',
        reasons: [expect.stringContaining('dispatch works in namespace ml-jobs only')],
      });
      expect(planOperation(op, { ...REF, name: 'dj-other-s1' }, plainJob())).toMatchObject({
        kind: 'refuse',
      });
      const unlabelled = planOperation(op, REF, plainJob({ labels: { [Labels.jobId]: 'x' } }));
      expect(unlabelled).toMatchObject({ kind: 'refuse' });
      expect(unlabelled.kind === 'refuse' && unlabelled.reasons).toHaveLength(3);
    },
  );
});

describe('the plans over everything they may read', () => {
  const arb = fc.tuple(fc.constantFrom(...OPS), arbObserved);
  // How many of the 500 generated cases must reach each property's assertions (../reached.ts), as
  // in plans.test.ts: 50, so that a kind of input making a tenth of them is missed with a chance
  // under 0.6%. Three let few through (measured over 500 cases: 72-90 that write at all, 4-10 that
  // write twice), so they run 1,000, 1,000 and 8,000 cases, for about 160, 160 and 110.
  const MIN = 50;

  it('a plan that writes converges: planned again after its writes (resumed), there is nothing left to do', () => {
    assertReaching(MIN, (reached) =>
      fc.property(arb, ([op, observed]) => {
        const { first, last } = run(op, observed);
        if (first.kind !== 'write') return;
        reached();
        const waitingForWorkload = op === 'hold' && observed.config.mode === 'kueue' && last.kind === 'wait';
        expect(waitingForWorkload || last.kind === 'done').toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('Open and Hold are idempotent for a new run too; a new Release of one released is refused (not held)', () => {
    assertReaching(MIN, (reached) =>
      fc.property(arb, ([op, observed]) => {
        const { first, world } = run(op, observed);
        if (first.kind !== 'write' && first.kind !== 'done') return;
        reached();
        const again = planOperation(op, REF, world);
        if (op === 'release') {
          expect(again.kind).toBe(phaseOf(world).phase === 'Held' ? 'done' : 'refuse');
        } else {
          expect(['done', 'wait']).toContain(again.kind);
          expect(writesOf(again)).toEqual([]);
        }
      }),
    );
  });

  it('leaves the TrainJob as the operation wants it', () => {
    fc.assert(
      fc.property(arb, ([op, observed]) => {
        const { first, last, world } = run(op, observed);
        if (
          first.kind !== 'write' ||
          last.kind !== 'done' ||
          last.state.phase === 'Failed' ||
          last.state.phase === 'Succeeded'
        )
          return;
        const tj = world.trainJob!;
        const annotations = tj.metadata.annotations ?? {};
        const kueue = observed.config.mode === 'kueue';
        if (op === 'open') {
          expect(
            kueue ? gatesOf(annotations[Annotations.kueueAdmissionGatedBy]) : [tj.spec.suspend],
          ).not.toContain(kueue ? GATE : true);
        } else if (op === 'hold') {
          expect(last.state).toMatchObject({ phase: 'Held', held: true });
          if (!kueue) expect(tj.spec.suspend).toBe(true);
          if (kueue) expect(world.workload?.spec?.active).toBe(false);
        } else {
          expect(Object.hasOwn(annotations, OperationAnnotations.held)).toBe(false);
          expect(last.state.phase).not.toBe('Held');
          if (!kueue) expect(tj.spec.suspend).not.toBe(true);
        }
      }),
    );
  });

  it('Open keeps every other gate, in order, and drops the annotation only when no gate is left', () => {
    const others = fc.uniqueArray(
      fc.constantFrom('a.example.com/x', 'b.example.com/y', 'c.example.com/z', 'example.com/w'),
      {
        maxLength: 3,
      },
    );
    fc.assert(
      fc.property(others, fc.nat(), fc.constantFrom(',', ', ', ' , '), (rest, at, sep) => {
        const gates = [...rest.slice(0, at % (rest.length + 1)), GATE, ...rest.slice(at % (rest.length + 1))];
        const { first, last, world } = run('open', kueueJob({ gatedBy: gates.join(sep) }));
        expect(first.kind).toBe('write');
        expect(last.kind).toBe('done');
        const value = world.trainJob?.metadata.annotations?.[Annotations.kueueAdmissionGatedBy];
        expect(value).toBe(rest.length === 0 ? undefined : rest.join(','));
      }),
    );
  });

  it("writes only this TrainJob (its UID, dispatch's labels) and its Workload, only the fields of the operation, preconditions first", () => {
    const allowed = {
      TrainJob: new Set(['/spec/suspend', HELD_PATH, GATED_PATH, '/metadata/annotations']),
      Workload: new Set(['/spec/active']),
    };
    fc.assert(
      fc.property(arb, ([op, observed]) => {
        const plan = planOperation(op, REF, observed);
        for (const w of writesOf(plan)) {
          const object = w.kind === 'TrainJob' ? observed.trainJob : observed.workload;
          expect(
            w.kind === 'TrainJob' ? object?.metadata?.uid : object?.metadata?.labels?.[Labels.kueueJobUid],
          ).toBe(REF.uid);
          expect(identityRefusals(op, REF, observed)).toEqual([]);
          expect(w.patch.slice(0, 2)).toEqual([
            { op: 'test', path: '/metadata/uid', value: object?.metadata?.uid },
            { op: 'test', path: '/metadata/resourceVersion', value: object?.metadata?.resourceVersion },
          ]);
          for (const p of w.patch.slice(2)) {
            expect(p.op).not.toBe('test');
            expect(allowed[w.kind as 'TrainJob' | 'Workload'].has(p.path)).toBe(true);
          }
        }
      }),
    );
  });

  it('never writes to a TrainJob of another UID or without labels, nor when it has ended', () => {
    assertReaching(MIN, (reached) =>
      fc.property(arb, ([op, observed]) => {
        const plan = planOperation(op, REF, observed);
        const tj = observed.trainJob;
        if (tj === undefined) return;
        const foreign = tj.metadata.uid !== REF.uid || identityRefusals(op, REF, observed).length > 0;
        const ended = ['Succeeded', 'Failed'].includes(phaseOf(observed).phase);
        if (foreign || ended) {
          reached();
          expect(plan.kind).toBe('refuse');
        }
      }),
    );
  });

  it('Kueue: the TrainJob is written before its Workload; an interruption between them leaves exactly the Workload write', () => {
    assertReaching(MIN, (reached) =>
      fc.property(arb, ([op, observed]) => {
        const writes = writesOf(planOperation(op, REF, observed));
        if (writes.length < 2) return;
        reached();
        expect(writes.map((w) => w.kind)).toEqual(['TrainJob', 'Workload']);
        const rest = planOperation(op, REF, applyWrite(observed, writes[0]!), { resumed: true });
        expect(writesOf(rest).map((w) => [w.kind, w.patch.slice(2)])).toEqual([
          ['Workload', writes[1]!.patch.slice(2)],
        ]);
      }),
      { numRuns: 8000 },
    );
  });

  it('a write fails its precondition once the object has changed since it was read', () => {
    assertReaching(MIN, (reached) =>
      fc.property(arb, ([op, observed]) => {
        const writes = writesOf(planOperation(op, REF, observed));
        if (writes.length > 0) reached();
        for (const w of writes) {
          const object = w.kind === 'TrainJob' ? observed.trainJob : observed.workload;
          expect(() => applyJsonPatch(bump(object!), w.patch)).toThrow(JsonPatchError);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('Release never reactivates a Workload Kueue deactivated itself', () => {
    fc.assert(
      fc.property(arbObserved, (observed) => {
        const wl = observed.workload;
        const writes = writesOf(planRelease(REF, { ...observed, config: KUEUE_CONFIG }));
        if (wl !== undefined && kueueDeactivation(wl) !== undefined)
          expect(writes.map((w) => w.kind)).not.toContain('Workload');
      }),
    );
  });
});

describe('applyJsonPatch', () => {
  const doc = { a: { 'b/c': 1, 'd~e': [1, 2] } };

  it('applies test, add, replace and remove through escaped pointers, leaving its input alone', () => {
    const out = applyJsonPatch(doc, [
      { op: 'test', path: pointer('a', 'b/c'), value: 1 },
      { op: 'replace', path: pointer('a', 'b/c'), value: 2 },
      { op: 'add', path: pointer('a', 'd~e', '-'), value: 3 },
      { op: 'add', path: pointer('a', 'd~e', 0), value: 0 },
      { op: 'remove', path: pointer('a', 'd~e', 1) },
      { op: 'add', path: pointer('a', 'new'), value: { x: 1 } },
    ]);
    expect(pointer('a', 'b/c', 'd~e')).toBe('/a/b~1c/d~0e');
    expect(out).toEqual({ a: { 'b/c': 2, 'd~e': [0, 2, 3], new: { x: 1 } } });
    expect(doc).toEqual({ a: { 'b/c': 1, 'd~e': [1, 2] } });
  });

  it.each([
    [{ op: 'test', path: '/a/b~1c', value: 2 }, /test failed/],
    [{ op: 'remove', path: '/a/missing' }, /missing/],
    [{ op: 'replace', path: '/a/d~0e/5', value: 1 }, /missing/],
    [{ op: 'add', path: '/a/d~0e/7', value: 1 }, /no index 7/],
    [{ op: 'add', path: '/x/y', value: 1 }, /x is missing/],
    [{ op: 'add', path: '/a/b~1c/z', value: 1 }, /not an object or array/],
    [{ op: 'add', path: 'a', value: 1 }, /not a JSON pointer/],
    [{ op: 'add', path: '', value: 1 }, /whole document/],
  ] as const)('%j fails', (op, message) => {
    expect(() => applyJsonPatch(doc, [op])).toThrow(message);
  });
});
