// A TrainJob's phase after Start (src/core/operations/phase.ts, docs/contract.md §9), from the objects as read:
// examples of every phase in both modes, then properties over every combination of what is read.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { workloadOfTrainJob } from '../../../../src/core/objects/workloads.js';
import { dispatchLabelProblems } from '../../../../src/core/operations/identity.js';
import type { Observed } from '../../../../src/core/operations/observed.js';
import { phaseOf, stateOf } from '../../../../src/core/operations/phase.js';
import { terminalOf } from '../../../../src/core/operations/terminal.js';
import { Labels } from '../../../../src/model/constants.js';
import { OperationAnnotations, PHASES } from '../../../../src/model/constants.js';
import { CRDS, crdValidator, validateTrainJob } from '../../../support/crd-schema.js';
import {
  arbObserved,
  arbTrainJob,
  condition,
  DISPATCH_LABELS,
  GATE,
  KUEUE_CONFIG,
  OTHER_UID,
  PLAIN,
  REF,
  T1,
  trainJob,
  workload,
} from '../operation-fixtures.js';

const plain = (tj = trainJob({ suspend: true })): Observed => ({ trainJob: tj, config: PLAIN });
const kueue = (
  tj = trainJob({ suspend: true, gatedBy: GATE }),
  wl = workload({ check: 'Pending' }),
): Observed => ({
  trainJob: tj,
  workload: wl,
  config: KUEUE_CONFIG,
});

const COMPLETE = condition('Complete', 'True', 'AllJobsCompleted', 'jobset completed successfully', T1);
const DEADLINE = condition('Failed', 'True', 'DeadlineExceeded', 'TrainJob exceeded its active deadline', T1);
const DEACTIVATED = condition('Evicted', 'True', 'Deactivated', 'The workload is deactivated');
const DEACTIVATED_BY_KUEUE = condition(
  'Evicted',
  'True',
  'DeactivatedDueToRequeuingLimitExceeded',
  'The workload is deactivated due to exceeding the maximum number of re-queuing retries',
);

describe('the test objects match the real CRDs', () => {
  it('TrainJobs (Trainer v2.3.0)', () => {
    for (const tj of [
      trainJob({
        suspend: true,
        held: 'true',
        gatedBy: GATE,
        conditions: [COMPLETE, condition('Suspended', 'False', 'Resumed')],
      }),
      trainJob({ conditions: [DEADLINE], deleting: true }),
    ]) {
      expect(validateTrainJob(tj)).toEqual([]);
    }
  });

  it('Workloads (Kueue v0.19.2 v1beta2)', () => {
    const validate = crdValidator(CRDS.workload, { version: 'v1beta2', unknownRules: 'skip' });
    for (const wl of [
      workload({
        check: 'Pending',
        otherCheck: 'Ready',
        active: false,
        conditions: [condition('QuotaReserved'), DEACTIVATED_BY_KUEUE],
      }),
      workload({
        check: 'Rejected',
        checkMessage: 'no',
        conditions: [condition('DeactivationTarget', 'True', 'AdmissionCheck')],
      }),
    ]) {
      expect(validate(wl)).toEqual([]);
    }
  });
});

describe('phaseOf, plain mode', () => {
  it('Absent when the read answered 404', () => {
    expect(phaseOf({ config: PLAIN })).toEqual({
      phase: 'Absent',
      held: false,
      reasons: ['no TrainJob: the read answered 404'],
    });
  });

  it('Gated while spec.suspend is true and it is not held; the reason says whether Open recorded it opened', () => {
    expect(phaseOf(plain())).toMatchObject({ phase: 'Gated', held: false, reasons: [expect.stringMatching(/never opened$/)] });
    expect(phaseOf(plain(trainJob({ suspend: true, held: 'false' })))).toMatchObject({
      phase: 'Gated',
      held: false,
    });
    expect(phaseOf(plain(trainJob({ suspend: true, opened: 'true' })))).toMatchObject({
      phase: 'Gated',
      reasons: [expect.stringContaining('opened (annotation dispatch.phpboyscout.uk/opened), yet suspended by someone else')],
    });
  });

  it('Running once spec.suspend is false (or absent: the CRD defaults it to false)', () => {
    expect(phaseOf(plain(trainJob({ suspend: false })))).toMatchObject({ phase: 'Running', held: false });
    expect(phaseOf(plain(trainJob({})))).toMatchObject({ phase: 'Running' });
  });

  it('Held with the held annotation "true"; a held one not yet suspended says the Hold is not finished', () => {
    const held = phaseOf(plain(trainJob({ suspend: true, held: 'true' })));
    expect(held).toEqual({
      phase: 'Held',
      held: true,
      reasons: [`TrainJob ml-jobs/${REF.name}: annotation ${OperationAnnotations.held} is "true"`],
    });
    const unfinished = phaseOf(plain(trainJob({ suspend: false, held: 'true' })));
    expect(unfinished.phase).toBe('Held');
    expect(unfinished.reasons[1]).toMatch(/Hold is not finished/);
  });

  it('Succeeded or Failed from the TrainJob conditions, Failed winning, whatever else is set', () => {
    expect(phaseOf(plain(trainJob({ suspend: false, conditions: [COMPLETE] })))).toMatchObject({
      phase: 'Succeeded',
      reasons: [
        `TrainJob ml-jobs/${REF.name}: condition Complete is True (AllJobsCompleted: jobset completed successfully)`,
      ],
    });
    expect(phaseOf(plain(trainJob({ held: 'true', conditions: [DEADLINE] })))).toMatchObject({
      phase: 'Failed',
      held: true,
    });
    expect(phaseOf(plain(trainJob({ conditions: [COMPLETE, DEADLINE] }))).phase).toBe('Failed');
    expect(
      phaseOf(plain(trainJob({ conditions: [condition('Complete', 'False'), condition('Failed', 'False')] })))
        .phase,
    ).toBe('Running');
  });

  it('Absent while being deleted, unless it ended first', () => {
    expect(phaseOf(plain(trainJob({ deleting: true }))).phase).toBe('Absent');
    expect(phaseOf(plain(trainJob({ deleting: true, conditions: [COMPLETE] }))).phase).toBe('Succeeded');
  });
});

describe('phaseOf, Kueue mode', () => {
  it("Gated while dispatch's gate is in admission-gated-by, among others or alone", () => {
    expect(phaseOf(kueue()).phase).toBe('Gated');
    expect(phaseOf(kueue(trainJob({ suspend: true, gatedBy: `example.com/x, ${GATE}` }))).phase).toBe(
      'Gated',
    );
  });

  it('Queued once opened and not admitted, saying why', () => {
    const reserved = workload({ check: 'Pending', conditions: [condition('QuotaReserved')] });
    const queued = phaseOf(kueue(trainJob({ suspend: true, gatedBy: 'example.com/other' }), reserved));
    expect(queued.phase).toBe('Queued');
    expect(queued.reasons[0]).toMatch(
      /condition QuotaReserved is True.*admission check dispatch is "Pending"/,
    );
    const none = phaseOf({ trainJob: trainJob({ suspend: true }), config: KUEUE_CONFIG });
    expect(none).toMatchObject({ phase: 'Queued', reasons: [expect.stringMatching(/no Workload/)] });
    expect(phaseOf(kueue(trainJob({ suspend: true }), workload({}))).reasons[0]).toMatch(
      /no condition QuotaReserved/,
    );
  });

  it('Running once the Workload is Admitted, or the TrainJob unsuspended', () => {
    const admitted = workload({
      check: 'Ready',
      conditions: [condition('QuotaReserved'), condition('Admitted')],
    });
    expect(phaseOf(kueue(trainJob({ suspend: true }), admitted)).phase).toBe('Running');
    expect(phaseOf(kueue(trainJob({ suspend: false }))).phase).toBe('Running');
  });

  it('Held with the held annotation, and says when the Workload is not yet inactive', () => {
    const notYet = phaseOf(kueue(trainJob({ suspend: true, held: 'true' }), workload({ active: true })));
    expect(notYet).toMatchObject({ phase: 'Held', held: true });
    expect(notYet.reasons[1]).toMatch(/spec.active is not false yet/);
    const done = phaseOf(
      kueue(trainJob({ suspend: true, held: 'true', gatedBy: GATE }), workload({ active: false })),
    );
    expect(done).toMatchObject({
      phase: 'Held',
      held: true,
      reasons: [expect.any(String), expect.stringMatching(/spec.active is false$/)],
    });
    const noWorkload = phaseOf({ trainJob: trainJob({ suspend: true, held: 'true' }), config: KUEUE_CONFIG });
    expect(noWorkload.reasons[1]).toMatch(/no Workload/);
  });

  it('Held, not held-marked, while the Workload is inactive by someone else than Kueue (a Release half done)', () => {
    const state = phaseOf(
      kueue(trainJob({ suspend: true }), workload({ active: false, conditions: [DEACTIVATED] })),
    );
    expect(state).toMatchObject({ phase: 'Held', held: false });
    expect(state.reasons[0]).toMatch(/not by Kueue/);
  });

  it('Failed when Kueue deactivated the Workload itself and the TrainJob is not held', () => {
    const byKueue = workload({ active: false, conditions: [DEACTIVATED_BY_KUEUE] });
    expect(phaseOf(kueue(trainJob({ suspend: true }), byKueue))).toMatchObject({
      phase: 'Failed',
      reasons: [
        expect.stringMatching(
          /deactivated by Kueue: condition Evicted is True \(DeactivatedDueToRequeuingLimitExceeded/,
        ),
      ],
    });
    const target = workload({
      active: true,
      conditions: [condition('DeactivationTarget', 'True', 'MaximumExecutionTimeExceeded')],
    });
    expect(phaseOf(kueue(trainJob({ suspend: false }), target)).phase).toBe('Failed');
    // Held: Kueue's decision does not end a TrainJob dispatch holds.
    expect(phaseOf(kueue(trainJob({ suspend: true, held: 'true' }), byKueue)).phase).toBe('Held');
    // Reactivated since (spec.active true): the old Evicted reason no longer decides.
    const reactivated = workload({ active: true, conditions: [DEACTIVATED_BY_KUEUE] });
    expect(phaseOf(kueue(trainJob({ suspend: true }), reactivated)).phase).toBe('Queued');
  });

  it("Failed when dispatch's check is Rejected, held or not", () => {
    for (const held of [undefined, 'true']) {
      const rejected = workload({ check: 'Rejected', checkMessage: 'quota policy' });
      const state = phaseOf(kueue(trainJob({ suspend: true, ...(held ? { held } : {}) }), rejected));
      expect(state.phase).toBe('Failed');
      expect(state.reasons[0]).toMatch(/admission check dispatch is Rejected: quota policy$/);
    }
  });

  it('sets aside a Workload of another UID, or one being deleted, and says so', () => {
    const other = phaseOf(
      kueue(trainJob({ suspend: true }), workload({ jobUid: OTHER_UID, check: 'Rejected' })),
    );
    expect(other.phase).toBe('Queued');
    expect(other.reasons[1]).toMatch(/not this TrainJob's UID: ignored/);
    const deleting = phaseOf(kueue(trainJob({ suspend: true }), workload({ deleting: true, active: false })));
    expect(deleting.phase).toBe('Queued');
    expect(deleting.reasons[1]).toMatch(/being deleted: ignored/);
  });
});

describe('phaseOf, over everything it may read', () => {
  it('is total: one of the phases of docs/contract.md §9; held is exactly the annotation "true"', () => {
    fc.assert(
      fc.property(arbObserved, (observed) => {
        const view = phaseOf(observed);
        expect(PHASES).toContain(view.phase);
        expect(view.held).toBe(
          observed.trainJob?.metadata.annotations?.[OperationAnnotations.held] === 'true',
        );
        expect(view.reasons.length).toBeGreaterThan(0);
      }),
    );
  });

  it('plain mode never reads the Workload, and is never Queued', () => {
    fc.assert(
      fc.property(arbObserved, ({ trainJob: tj, workload: wl }) => {
        const without = phaseOf({ ...(tj ? { trainJob: tj } : {}), config: PLAIN });
        expect(
          phaseOf({ ...(tj ? { trainJob: tj } : {}), ...(wl ? { workload: wl } : {}), config: PLAIN }),
        ).toEqual(without);
        expect(without.phase).not.toBe('Queued');
      }),
    );
  });

  it('Succeeded or Failed exactly when terminalOf says so; Absent exactly when gone or being deleted before that', () => {
    fc.assert(
      fc.property(arbObserved, (observed) => {
        const { phase } = phaseOf(observed);
        const terminal = terminalOf(observed);
        expect(terminal?.phase).toBe(phase === 'Succeeded' || phase === 'Failed' ? phase : undefined);
        const gone =
          observed.trainJob === undefined ||
          (observed.trainJob.metadata.deletionTimestamp !== undefined && !terminal);
        expect(phase === 'Absent').toBe(gone);
      }),
    );
  });

  it('a Workload of another UID changes nothing', () => {
    fc.assert(
      fc.property(arbTrainJob, (tj) => {
        const wl = workload({
          jobUid: 'not-this-one',
          check: 'Rejected',
          active: false,
          conditions: [DEACTIVATED_BY_KUEUE],
        });
        const alone = phaseOf({ trainJob: tj, config: KUEUE_CONFIG });
        const withOther = phaseOf({ trainJob: tj, workload: wl, config: KUEUE_CONFIG });
        expect(withOther.phase).toBe(alone.phase);
      }),
    );
  });

  it('never throws on statuses, specs and annotations of any shape', () => {
    fc.assert(
      fc.property(
        fc.anything(),
        fc.anything(),
        fc.anything(),
        fc.constantFrom(PLAIN, KUEUE_CONFIG),
        (status, spec, checks, config) => {
          const tj = { ...trainJob({ suspend: true }), status, spec } as never;
          const wl = {
            ...workload({}),
            status: { conditions: status, admissionChecks: checks },
            spec,
          } as never;
          expect(PHASES).toContain(phaseOf({ trainJob: tj, workload: wl, config }).phase);
        },
      ),
    );
  });
});

describe('stateOf', () => {
  it('is the ref with phaseOf', () => {
    expect(stateOf(REF, plain())).toEqual({ ref: REF, ...phaseOf(plain()) });
  });

  it('a TrainJob of the name with another UID is not the ref’s: Absent, saying so', () => {
    expect(stateOf(REF, plain(trainJob({ uid: OTHER_UID, conditions: [COMPLETE] })))).toEqual({
      ref: REF,
      phase: 'Absent',
      held: false,
      reasons: [
        `TrainJob ml-jobs/${REF.name} has UID "${OTHER_UID}", not ${REF.uid}: the TrainJob referred to is gone`,
      ],
    });
  });
});

describe('dispatchLabelProblems', () => {
  it('names each of dispatch’s labels missing or wrong', () => {
    expect(dispatchLabelProblems(trainJob())).toEqual([]);
    expect(dispatchLabelProblems(trainJob({ labels: { [Labels.jobId]: '' } }))).toEqual([
      `TrainJob ml-jobs/${REF.name}: label app.kubernetes.io/managed-by is absent, not "dispatch"`,
      `TrainJob ml-jobs/${REF.name}: label dispatch.phpboyscout.uk/job-id is ""`,
      `TrainJob ml-jobs/${REF.name}: label dispatch.phpboyscout.uk/generation is absent`,
      `TrainJob ml-jobs/${REF.name}: label dispatch.phpboyscout.uk/submission is absent`,
    ]);
    expect(dispatchLabelProblems({ metadata: { labels: { ...DISPATCH_LABELS } } })).toEqual([]);
  });
});

describe('workloadOfTrainJob', () => {
  it('picks the Workload of the UID that is not being deleted, an unfinished one first, then by name', () => {
    const finished = workload({
      name: 'a-finished',
      conditions: [condition('Finished', 'True', 'OutOfSync')],
    });
    const current = workload({ name: 'b-current' });
    const later = workload({ name: 'c-current' });
    const deleting = workload({ name: '0-deleting', deleting: true });
    const other = workload({ name: '0-other', jobUid: OTHER_UID });
    expect(workloadOfTrainJob([later, other, finished, deleting, current], REF.uid)).toBe(current);
    expect(workloadOfTrainJob([finished, deleting], REF.uid)).toBe(finished);
    expect(workloadOfTrainJob([deleting, other], REF.uid)).toBeUndefined();
  });
});
