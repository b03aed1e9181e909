// Watch's outcome (src/core/operations/watch-outcome.ts, docs/contract.md §9): the exit code of
// the first failed node, and the outcome once the TrainJob has ended, by example and over every
// combination of objects the decisions read.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exitCodeOf, watchOutcome } from '../../../../src/core/operations/watch-outcome.js';
import { stateOf } from '../../../../src/core/operations/phase.js';
import { Labels } from '../../../../src/model/constants.js';
import { OutcomeSchema } from '../../../../src/model/operations.js';
import {
  arbObserved,
  condition,
  KUEUE_CONFIG,
  OTHER_UID,
  PLAIN,
  pod,
  REF,
  T0,
  T1,
  trainJob,
  workload,
} from '../operation-fixtures.js';

const NOW = '2026-01-02T03:04:05Z';

describe('exitCodeOf', () => {
  const tj = trainJob();

  it('is the exit code of the first node container of the job’s pods that terminated non-zero', () => {
    const pods = [
      pod('p-2', { exitCode: 137, finishedAt: '2026-01-01T00:03:00Z' }),
      pod('p-1', { exitCode: 0, finishedAt: '2026-01-01T00:01:00Z' }),
      pod('p-0', {
        exitCode: 1,
        finishedAt: '2026-01-01T00:04:00Z',
        lastExitCode: 125,
        lastFinishedAt: '2026-01-01T00:02:00Z',
      }),
      pod('p-3', {}),
    ];
    expect(exitCodeOf(tj, pods)).toBe(125);
    expect(exitCodeOf(tj, pods.slice(0, 2))).toBe(137);
    expect(exitCodeOf(tj, [pods[1]!, pods[3]!])).toBeUndefined();
  });

  it('ties by pod name, and one without finishedAt comes last', () => {
    expect(
      exitCodeOf(tj, [
        pod('p-b', { exitCode: 2, finishedAt: T0 }),
        pod('p-a', { exitCode: 3, finishedAt: T0 }),
      ]),
    ).toBe(3);
    expect(exitCodeOf(tj, [pod('p-a', { exitCode: 4 }), pod('p-b', { exitCode: 5, finishedAt: T1 })])).toBe(
      5,
    );
  });

  it('ignores pods of another job or submission, other containers, and a TrainJob without the labels', () => {
    const other = pod(
      'p-x',
      { exitCode: 9, finishedAt: T0 },
      { [Labels.jobId]: 'other', [Labels.submission]: '12' },
    );
    const otherSubmission = pod(
      'p-y',
      { exitCode: 8, finishedAt: T0 },
      { [Labels.jobId]: tj.metadata.labels![Labels.jobId]!, [Labels.submission]: '11' },
    );
    const sidecar = pod('p-z', { exitCode: 7, finishedAt: T0 });
    sidecar.status!.containerStatuses![0]!.name = 'sidecar';
    expect(exitCodeOf(tj, [other, otherSubmission, sidecar])).toBeUndefined();
    expect(exitCodeOf(trainJob({ labels: {} }), [pod('p', { exitCode: 1 })])).toBeUndefined();
    expect(exitCodeOf(tj, [{ metadata: { labels: tj.metadata.labels! } }])).toBeUndefined();
  });
});

describe('watchOutcome', () => {
  const observe = (o: Partial<Parameters<typeof watchOutcome>[1]> = {}) => ({
    config: PLAIN,
    pods: [],
    observedAt: NOW,
    ...o,
  });

  it('undefined while the TrainJob has not ended', () => {
    expect(watchOutcome(REF, observe({ trainJob: trainJob({ suspend: false }) }))).toBeUndefined();
  });

  it('Succeeded from condition Complete, with its reason, message and time', () => {
    const complete = condition('Complete', 'True', 'AllJobsCompleted', 'jobset completed successfully', T1);
    expect(
      watchOutcome(
        REF,
        observe({ trainJob: trainJob({ conditions: [complete] }), pods: [pod('p', { exitCode: 1 })] }),
      ),
    ).toEqual({
      ref: REF,
      phase: 'Succeeded',
      reason: 'AllJobsCompleted',
      message: 'jobset completed successfully',
      finishedAt: T1,
    });
  });

  it('Failed from condition Failed, with the exit code, e.g. 125 for a WorkDir the prologue could not enter', () => {
    const failed = condition(
      'Failed',
      'True',
      'FailedJobs',
      'jobset failed due to one or more job failures',
      T1,
    );
    expect(
      watchOutcome(
        REF,
        observe({
          trainJob: trainJob({ conditions: [failed] }),
          pods: [pod('p', { exitCode: 125, finishedAt: T0 })],
        }),
      ),
    ).toEqual({
      ref: REF,
      phase: 'Failed',
      reason: 'FailedJobs',
      message: 'jobset failed due to one or more job failures',
      exitCode: 125,
      finishedAt: T1,
    });
    const deadline = {
      ...condition('Failed', 'True', 'DeadlineExceeded', 'TrainJob exceeded its active deadline'),
      lastTransitionTime: undefined,
    };
    expect(watchOutcome(REF, observe({ trainJob: trainJob({ conditions: [deadline] }) }))).toEqual({
      ref: REF,
      phase: 'Failed',
      reason: 'DeadlineExceeded',
      message: 'TrainJob exceeded its active deadline',
      finishedAt: NOW,
    });
  });

  it('Kueue: Failed when the check is Rejected, or Kueue deactivated the Workload', () => {
    const rejected = workload({ check: 'Rejected', checkMessage: 'no' });
    expect(
      watchOutcome(
        REF,
        observe({ config: KUEUE_CONFIG, trainJob: trainJob({ suspend: true }), workload: rejected }),
      ),
    ).toEqual({
      ref: REF,
      phase: 'Failed',
      reason: 'AdmissionCheckRejected',
      message: 'admission check dispatch is Rejected: no',
      finishedAt: T0,
    });
    const byKueue = workload({
      active: false,
      conditions: [condition('Evicted', 'True', 'DeactivatedDueToRequeuingLimitExceeded', 'too many', T1)],
    });
    expect(
      watchOutcome(
        REF,
        observe({ config: KUEUE_CONFIG, trainJob: trainJob({ suspend: true }), workload: byKueue }),
      ),
    ).toMatchObject({
      phase: 'Failed',
      reason: 'DeactivatedDueToRequeuingLimitExceeded',
      message: 'too many',
      finishedAt: T1,
    });
  });

  it('Absent when gone, being deleted, or replaced by a TrainJob of another UID, at the time it was seen so', () => {
    expect(watchOutcome(REF, observe())).toEqual({
      ref: REF,
      phase: 'Absent',
      reason: 'NotFound',
      message: 'no TrainJob: the read answered 404',
      finishedAt: NOW,
    });
    expect(watchOutcome(REF, observe({ trainJob: trainJob({ deleting: true }) }))?.phase).toBe('Absent');
    const replaced = trainJob({ uid: OTHER_UID, conditions: [condition('Complete', 'True')] });
    expect(watchOutcome(REF, observe({ trainJob: replaced }))).toMatchObject({
      phase: 'Absent',
      message: expect.stringContaining('is gone'),
    });
  });

  it('ends exactly when the phase is Succeeded, Failed or Absent, with that phase, and matches OutcomeSchema', () => {
    fc.assert(
      fc.property(arbObserved, (observed) => {
        const outcome = watchOutcome(REF, {
          ...observed,
          pods: [pod('p', { exitCode: 3, finishedAt: T0 })],
          observedAt: NOW,
        });
        const { phase } = stateOf(REF, observed);
        expect(outcome?.phase).toBe(['Succeeded', 'Failed', 'Absent'].includes(phase) ? phase : undefined);
        if (outcome !== undefined) expect(OutcomeSchema.parse(outcome)).toEqual(outcome);
        expect(outcome?.exitCode).toBe(
          outcome?.phase === 'Failed' &&
            observed.trainJob?.metadata.labels?.[Labels.submission] !== undefined &&
            observed.trainJob.metadata.labels[Labels.jobId] !== undefined
            ? 3
            : undefined,
        );
      }),
    );
  });
});
