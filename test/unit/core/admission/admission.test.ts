// The admission check controller's decisions (src/core/admission/, docs/contract.md §9): examples of each rule, and properties over the Workloads and TrainJobs a
// pass may read, with the patches applied as the API server would (applyJsonPatch).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admissionCheckActivePatch } from '../../../../src/core/admission/check-active.js';
import { readyDecision, trainJobsByUid, workloadsToMarkReady } from '../../../../src/core/admission/workload-ready.js';
import type { PlannedWrite } from '../../../../src/core/objects/planned-write.js';
import { applyJsonPatch, JsonPatchError } from '../../../support/json-patch.js';
import { Labels } from '../../../../src/model/constants.js';
import type { TrainJob, Workload } from '../../../../src/model/kube.js';
import type { AdmissionCheck } from '../../../../src/model/kube.js';
import {
  CHECK,
  condition,
  KUEUE_CONFIG,
  NS,
  OTHER_UID,
  REF,
  T0,
  T1,
  trainJob,
  UID,
  workload,
} from '../operation-fixtures.js';
import { CRDS, crdValidator } from '../../../support/crd-schema.js';

const NOW = '2026-01-02T03:04:05Z';
const CONTROLLER = 'dispatch.phpboyscout.uk/admission-check';
const RESERVED = condition('QuotaReserved', 'True', 'QuotaReserved', 'Quota reserved in ClusterQueue cq');

function admissionCheck(conditions?: unknown, generation = 1): AdmissionCheck {
  return {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'AdmissionCheck',
    metadata: { name: CHECK, uid: 'ac-uid', resourceVersion: '7', generation },
    spec: { controllerName: CONTROLLER },
    ...(conditions !== undefined ? { status: { conditions } } : {}),
  } as AdmissionCheck;
}

const ACTIVE = {
  type: 'Active',
  status: 'True',
  reason: 'Ready',
  message: 'x',
  lastTransitionTime: T0,
  observedGeneration: 1,
};
const AC_PRE = [
  { op: 'test', path: '/metadata/uid', value: 'ac-uid' },
  { op: 'test', path: '/metadata/resourceVersion', value: '7' },
];

const patchOf = <T>(object: T, d: ReturnType<typeof admissionCheckActivePatch>): T =>
  d.action === 'patch' ? applyJsonPatch(object, d.write.patch) : object;

// The AdmissionCheck CRD is left out: its spec.parameters.kind pattern uses Go's `(?i)`, which
// the JSON Schema validator of test/support cannot compile.
describe('what the controller writes passes the real Kueue v0.19.2 Workload CRD', () => {
  it('a Workload whose check is set Ready', () => {
    const validate = crdValidator(CRDS.workload, { version: 'v1beta2', unknownRules: 'skip' });
    const wl = readyWorkload();
    expect(validate(wl)).toEqual([]);
    expect(validate(patchOf(wl, readyDecision(wl, openedJob(), KUEUE_CONFIG, NOW)))).toEqual([]);
  });
});

describe('admissionCheckActivePatch', () => {
  it('adds condition Active True (Ready) to an AdmissionCheck without status, or without it', () => {
    const fresh = admissionCheckActivePatch(admissionCheck(), KUEUE_CONFIG, NOW);
    const active = {
      type: 'Active',
      status: 'True',
      reason: 'Ready',
      message: expect.any(String),
      lastTransitionTime: NOW,
      observedGeneration: 1,
    };
    expect(fresh).toEqual({
      action: 'patch',
      write: {
        kind: 'AdmissionCheck',
        name: CHECK,
        uid: 'ac-uid',
        subresource: 'status',
        patch: [...AC_PRE, { op: 'add', path: '/status', value: { conditions: [active] } }],
        summary: 'AdmissionCheck dispatch: condition Active True (Ready)',
      },
    });
    const other = condition('Other', 'True');
    const added = admissionCheckActivePatch(admissionCheck([other]), KUEUE_CONFIG, NOW);
    expect(added.action === 'patch' && added.write.patch.slice(2)).toEqual([
      { op: 'add', path: '/status/conditions/-', value: active },
    ]);
  });

  it('replaces an Active condition that is False (a new transition time) or of another reason (the time kept)', () => {
    const falseOne = admissionCheckActivePatch(
      admissionCheck([condition('Other'), { ...ACTIVE, status: 'False' }]),
      KUEUE_CONFIG,
      NOW,
    );
    expect(falseOne.action === 'patch' && falseOne.write.patch.slice(2)).toEqual([
      { op: 'test', path: '/status/conditions/1/type', value: 'Active' },
      {
        op: 'replace',
        path: '/status/conditions/1',
        value: expect.objectContaining({ status: 'True', lastTransitionTime: NOW }),
      },
    ]);
    const otherReason = admissionCheckActivePatch(
      admissionCheck([{ ...ACTIVE, reason: 'Active' }]),
      KUEUE_CONFIG,
      NOW,
    );
    expect(otherReason.action === 'patch' && otherReason.write.patch[3]).toMatchObject({
      value: { reason: 'Ready', lastTransitionTime: T0 },
    });
  });

  it('nothing when already Active for this generation; a new generation is observed again', () => {
    expect(admissionCheckActivePatch(admissionCheck([ACTIVE]), KUEUE_CONFIG, NOW)).toEqual({
      action: 'none',
      reason: 'AdmissionCheck dispatch: already Active',
    });
    expect(admissionCheckActivePatch(admissionCheck([ACTIVE], 2), KUEUE_CONFIG, NOW).action).toBe('patch');
  });

  it('leaves alone an AdmissionCheck of another name or controller', () => {
    expect(
      admissionCheckActivePatch({ ...admissionCheck(), metadata: { name: 'other' } }, KUEUE_CONFIG, NOW),
    ).toMatchObject({
      action: 'none',
      reason: 'AdmissionCheck other: not kueue.admissionCheck (dispatch)',
    });
    const foreign = { ...admissionCheck(), spec: { controllerName: 'kueue.x-k8s.io/provisioning-request' } };
    expect(admissionCheckActivePatch(foreign, KUEUE_CONFIG, NOW)).toMatchObject({
      action: 'none',
      reason: expect.stringContaining("not dispatch's to keep active"),
    });
  });

  it('rewrites a conditions list holding malformed entries, keeping the well-formed ones', () => {
    const d = admissionCheckActivePatch(admissionCheck([condition('Other'), 'junk']), KUEUE_CONFIG, NOW);
    expect(d.action === 'patch' && d.write.patch.slice(2)).toEqual([
      {
        op: 'add',
        path: '/status/conditions',
        value: [condition('Other'), expect.objectContaining({ type: 'Active' })],
      },
    ]);
  });

  it('applied, leaves exactly one Active True (Ready), the other conditions as they were, and nothing more to do', () => {
    const arbCondition = fc.oneof(
      fc.constantFrom(condition('Other'), condition('Another', 'False')),
      fc.record({
        type: fc.constant('Active'),
        status: fc.constantFrom('True', 'False', 'Unknown'),
        reason: fc.constantFrom('Ready', 'Active', 'Init'),
        message: fc.constant(''),
        lastTransitionTime: fc.constant(T0),
        observedGeneration: fc.constantFrom(1, 2),
      }),
    );
    const arbConditions = fc.option(fc.uniqueArray(arbCondition, { selector: (c) => c.type, maxLength: 3 }), {
      nil: undefined,
    });
    fc.assert(
      fc.property(arbConditions, fc.constantFrom(1, 2), (conditions, generation) => {
        const check = admissionCheck(conditions, generation);
        const after = patchOf(check, admissionCheckActivePatch(check, KUEUE_CONFIG, NOW));
        const list = after.status?.conditions ?? [];
        expect(list.filter((c) => c.type === 'Active')).toEqual([
          expect.objectContaining({ status: 'True', reason: 'Ready', observedGeneration: generation }),
        ]);
        expect(list.filter((c) => c.type !== 'Active')).toEqual(
          (conditions ?? []).filter((c) => c.type !== 'Active'),
        );
        expect(admissionCheckActivePatch(after, KUEUE_CONFIG, NOW).action).toBe('none');
      }),
    );
  });
});

/** A Workload the controller marks Ready, and its TrainJob. */
const readyWorkload = (shape: Parameters<typeof workload>[0] = {}) =>
  workload({ check: 'Pending', otherCheck: 'Ready', conditions: [RESERVED], ...shape });
const openedJob = (shape: Parameters<typeof trainJob>[0] = {}) => trainJob({ suspend: true, ...shape });

describe('readyDecision', () => {
  it("sets dispatch's check Ready on a Pending, reserved Workload of a labelled, unheld TrainJob, testing the entry", () => {
    const d = readyDecision(readyWorkload(), openedJob(), KUEUE_CONFIG, NOW);
    expect(d).toEqual({
      action: 'patch',
      write: {
        kind: 'Workload',
        namespace: NS,
        name: `trainjob-${REF.name}-1a2b3`,
        uid: 'wl-uid-1',
        subresource: 'status',
        patch: [
          { op: 'test', path: '/metadata/uid', value: 'wl-uid-1' },
          { op: 'test', path: '/metadata/resourceVersion', value: '200' },
          { op: 'test', path: '/status/admissionChecks/1/name', value: CHECK },
          { op: 'test', path: '/status/admissionChecks/1/state', value: 'Pending' },
          {
            op: 'replace',
            path: '/status/admissionChecks/1',
            value: {
              name: CHECK,
              state: 'Ready',
              message: `TrainJob ml-jobs/${REF.name} carries dispatch's labels and is not held`,
              lastTransitionTime: NOW,
            },
          },
        ],
        summary: `Workload ml-jobs/trainjob-${REF.name}-1a2b3: admission check dispatch Ready`,
      },
    });
  });

  it.each([
    ['another namespace', readyWorkload({ namespace: 'elsewhere' }), openedJob(), /not in namespace ml-jobs/],
    ['being deleted', readyWorkload({ deleting: true }), openedJob(), /being deleted/],
    [
      'not listing the check',
      readyWorkload({ check: undefined }),
      openedJob(),
      /does not list admission check dispatch/,
    ],
    ['already Ready', readyWorkload({ check: 'Ready' }), openedJob(), /is "Ready", not Pending/],
    ['Retry (not dispatch’s to change)', readyWorkload({ check: 'Retry' }), openedJob(), /is "Retry"/],
    ['Rejected', readyWorkload({ check: 'Rejected' }), openedJob(), /is "Rejected"/],
    [
      'no quota reserved',
      readyWorkload({ conditions: [condition('QuotaReserved', 'False', 'Pending')] }),
      openedJob(),
      /QuotaReserved is not True/,
    ],
    ['inactive', readyWorkload({ active: false }), openedJob(), /spec.active is false/],
    [
      'finished',
      readyWorkload({ conditions: [RESERVED, condition('Finished', 'True', 'Succeeded')] }),
      openedJob(),
      /Finished is True/,
    ],
    ['no TrainJob read', readyWorkload(), undefined, /no TrainJob of UID/],
    ['a TrainJob of another UID', readyWorkload(), openedJob({ uid: OTHER_UID }), /no TrainJob of UID/],
    [
      'without dispatch’s labels',
      readyWorkload(),
      openedJob({ labels: { [Labels.jobId]: 'x' } }),
      /managed-by/,
    ],
    ['held', readyWorkload(), openedJob({ held: 'true' }), /is held/],
    [
      'a TrainJob being deleted',
      readyWorkload(),
      openedJob({ deleting: true }),
      /TrainJob .* is being deleted/,
    ],
    [
      'a TrainJob that failed',
      readyWorkload(),
      openedJob({ conditions: [condition('Failed', 'True', 'DeadlineExceeded')] }),
      /Failed is True/,
    ],
  ] as [string, Workload, TrainJob | undefined, RegExp][])('none for a Workload %s', (_, wl, tj, reason) => {
    const d = readyDecision(wl, tj, KUEUE_CONFIG, NOW);
    expect(d).toEqual({ action: 'none', reason: expect.stringMatching(reason) });
  });

  it('none for a Workload whose job-uid label is missing', () => {
    const wl = readyWorkload();
    delete wl.metadata!.labels;
    expect(readyDecision(wl, openedJob(), KUEUE_CONFIG, NOW).action).toBe('none');
  });
});

describe('workloadsToMarkReady, over what one pass may read', () => {
  const uids = [UID, OTHER_UID, 'third-uid'];
  // Each Workload and TrainJob has at most one flaw that keeps the controller from marking it
  // (about half have none), so that most passes have something to write and every flaw is met.
  const none = (n: number) => Array<undefined>(n).fill(undefined);
  const arbWorkloadOfPass = fc.record({
    jobUid: fc.constantFrom(...uids),
    rv: fc.integer({ min: 1, max: 999 }).map(String),
    otherCheck: fc.constantFrom(undefined, 'Pending', 'Ready'),
    active: fc.constantFrom(true, undefined),
    flaw: fc.constantFrom(
      ...none(8),
      'Ready',
      'Retry',
      'Rejected',
      'unlisted',
      'unreserved',
      'finished',
      'inactive',
      'deleting',
      'elsewhere',
    ),
  });
  const arbJobOfPass = fc.record({
    held: fc.constantFrom(undefined, 'false'),
    flaw: fc.constantFrom(...none(5), 'absent', 'unlabelled', 'held', 'ended', 'deleting'),
  });
  const arbPass = fc
    .record({
      shapes: fc.array(arbWorkloadOfPass, { maxLength: 5 }),
      jobs: fc.tuple(...uids.map(() => arbJobOfPass)),
    })
    .map(({ shapes, jobs }) => ({
      workloads: shapes.map(({ flaw, ...shape }, i) => {
        const wl = workload({
          ...shape,
          check:
            flaw === 'unlisted'
              ? undefined
              : flaw === 'Ready' || flaw === 'Retry' || flaw === 'Rejected'
                ? flaw
                : 'Pending',
          conditions: [
            flaw === 'unreserved' ? condition('QuotaReserved', 'False', 'Pending') : RESERVED,
            ...(flaw === 'finished' ? [condition('Finished', 'True', 'Succeeded')] : []),
          ],
          ...(flaw === 'inactive' ? { active: false } : {}),
          deleting: flaw === 'deleting',
          namespace: flaw === 'elsewhere' ? 'elsewhere' : NS,
          name: `wl-${i}`,
        });
        return { ...wl, metadata: { ...wl.metadata, uid: `wl-uid-${i}` } };
      }),
      trainJobs: trainJobsByUid(
        jobs.flatMap(({ held, flaw }, i) =>
          flaw === 'absent'
            ? []
            : [
                trainJob({
                  uid: uids[i]!,
                  suspend: true,
                  ...(flaw === 'unlabelled' ? { labels: { [Labels.jobId]: 'x' } } : {}),
                  ...(flaw === 'held' ? { held: 'true' } : held !== undefined ? { held } : {}),
                  ...(flaw === 'ended'
                    ? { conditions: [condition('Complete', 'True', 'AllJobsCompleted')] }
                    : {}),
                  deleting: flaw === 'deleting',
                }),
              ],
        ),
      ),
    }));

  const byUid = (writes: PlannedWrite[]) => new Map(writes.map((w) => [w.uid, w]));
  const applyPass = (workloads: Workload[], writes: PlannedWrite[]) => {
    const patches = byUid(writes);
    return workloads.map((wl) => {
      const w = patches.get(wl.metadata!.uid!);
      return w
        ? {
            ...applyJsonPatch(wl, w.patch),
            metadata: { ...wl.metadata, resourceVersion: `${wl.metadata!.resourceVersion}1` },
          }
        : wl;
    });
  };

  it('marks exactly the Workloads readyDecision accepts, each a Pending, reserved, active one of a labelled, unheld TrainJob', () => {
    fc.assert(
      fc.property(arbPass, ({ workloads, trainJobs }) => {
        const writes = workloadsToMarkReady(workloads, trainJobs, KUEUE_CONFIG, NOW);
        const marked = new Set(writes.map((w) => w.uid));
        for (const wl of workloads) {
          const tj = trainJobs[wl.metadata!.labels![Labels.kueueJobUid]!];
          if (!marked.has(wl.metadata!.uid!)) continue;
          expect(wl.status?.admissionChecks?.find((c) => c.name === CHECK)?.state).toBe('Pending');
          expect(wl.status?.conditions).toContainEqual(
            expect.objectContaining({ type: 'QuotaReserved', status: 'True' }),
          );
          expect(wl.spec?.active).not.toBe(false);
          expect(tj).toBeDefined();
          expect(tj!.metadata.annotations?.['dispatch.phpboyscout.uk/held']).not.toBe('true');
          expect(tj!.metadata.labels?.[Labels.managedBy]).toBe('dispatch');
        }
      }),
    );
  });

  it("changes only dispatch's check, only to Ready; applied, a second pass has nothing to do", () => {
    fc.assert(
      fc.property(arbPass, ({ workloads, trainJobs }) => {
        const writes = workloadsToMarkReady(workloads, trainJobs, KUEUE_CONFIG, NOW);
        const after = applyPass(workloads, writes);
        after.forEach((wl, i) => {
          const before = workloads[i]!;
          const checks = (w: Workload) => w.status?.admissionChecks ?? [];
          expect(checks(wl).map((c) => c.name)).toEqual(checks(before).map((c) => c.name));
          checks(wl).forEach((c, j) => {
            if (c.name !== CHECK || c.state === checks(before)[j]!.state)
              expect(c).toEqual(checks(before)[j]);
            else expect([checks(before)[j]!.state, c.state]).toEqual(['Pending', 'Ready']);
          });
          expect({ ...wl, status: { ...wl.status, admissionChecks: [] }, metadata: {} }).toEqual({
            ...before,
            status: { ...before.status, admissionChecks: [] },
            metadata: {},
          });
        });
        expect(workloadsToMarkReady(after, trainJobs, KUEUE_CONFIG, NOW)).toEqual([]);
      }),
    );
  });

  it('two controllers reading the same Workloads write each at most once: the second write fails its test', () => {
    fc.assert(
      fc.property(arbPass, ({ workloads, trainJobs }) => {
        const first = workloadsToMarkReady(workloads, trainJobs, KUEUE_CONFIG, NOW);
        const second = workloadsToMarkReady(workloads, trainJobs, KUEUE_CONFIG, T1);
        const after = applyPass(workloads, first);
        for (const w of second) {
          const current = after.find((wl) => wl.metadata?.uid === w.uid)!;
          expect(() => applyJsonPatch(current, w.patch)).toThrow(JsonPatchError);
        }
      }),
    );
  });

  it('never marks the Workload of a held TrainJob, nor one outside the configured namespace', () => {
    fc.assert(
      fc.property(arbPass, ({ workloads, trainJobs }) => {
        const held = Object.fromEntries(
          Object.entries(trainJobs).map(([uid, tj]) => [
            uid,
            {
              ...tj,
              metadata: {
                ...tj.metadata,
                annotations: { ...tj.metadata.annotations, 'dispatch.phpboyscout.uk/held': 'true' },
              },
            },
          ]),
        );
        expect(workloadsToMarkReady(workloads, held, KUEUE_CONFIG, NOW)).toEqual([]);
        expect(
          workloadsToMarkReady(workloads, trainJobs, { ...KUEUE_CONFIG, namespace: 'nowhere' }, NOW),
        ).toEqual([]);
      }),
    );
  });

  it('trainJobsByUid skips a TrainJob without a UID', () => {
    const bare = trainJob();
    delete bare.metadata.uid;
    expect(Object.keys(trainJobsByUid([bare, trainJob()]))).toEqual([UID]);
  });
});
