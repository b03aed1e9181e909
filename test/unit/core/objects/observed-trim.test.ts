// Activities return the TrainJob and the Workload trimmed to what the decisions read
// (src/core/objects/observed-trim.ts), since workflow histories record every result. Trimming must never
// change a decision: the phase, Watch's outcome, each plan's writes and the admission check
// controller's writes are the same from the trimmed objects as from the whole ones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { workloadsToMarkReady } from '../../../../src/core/admission/workload-ready.js';
import { watchOutcome } from '../../../../src/core/operations/watch-outcome.js';
import type { TrainJobChange } from '../../../../src/core/operations/plan.js';
import { planOperation } from '../../../../src/core/operations/plans.js';
import { trimTrainJob, trimWorkload } from '../../../../src/core/objects/observed-trim.js';
import type { Observed } from '../../../../src/core/operations/observed.js';
import { stateOf } from '../../../../src/core/operations/phase.js';
import { arbObserved, REF, T1, trainJob, workload } from '../operation-fixtures.js';

const trimmed = (observed: Observed): Observed => ({
  ...observed,
  ...(observed.trainJob ? { trainJob: trimTrainJob(observed.trainJob) } : {}),
  ...(observed.workload ? { workload: trimWorkload(observed.workload) } : {}),
});

describe('trimTrainJob, trimWorkload', () => {
  it('keep metadata, spec.suspend / spec.active and the status the decisions read; drop the rest', () => {
    const job = trimTrainJob(trainJob({ suspend: true, held: 'true' }));
    expect(Object.keys(job.spec)).toEqual(['suspend']);
    expect(job.metadata).toMatchObject({ uid: REF.uid, resourceVersion: '100' });
    const wl = trimWorkload(workload({ active: false, check: 'Pending' }));
    expect(wl.spec).toEqual({ active: false });
    expect(Object.keys(wl.status ?? {})).toEqual(['admissionChecks']);
    expect(trimTrainJob(trainJob()).spec).toEqual({});
  });

  it('change no decision: state, Watch outcome, every plan and the controller writes are the same', () => {
    fc.assert(
      fc.property(arbObserved, fc.constantFrom<TrainJobChange>('open', 'hold', 'release'), fc.boolean(), (observed, op, resumed) => {
        const small = trimmed(observed);
        expect(stateOf(REF, small)).toEqual(stateOf(REF, observed));
        expect(planOperation(op, REF, small, { resumed })).toEqual(planOperation(op, REF, observed, { resumed }));
        const watched = { pods: [], observedAt: T1 };
        expect(watchOutcome(REF, { ...small, ...watched })).toEqual(watchOutcome(REF, { ...observed, ...watched }));
        const jobs = observed.trainJob ? { [observed.trainJob.metadata.uid ?? '']: observed.trainJob } : {};
        const smallJobs = small.trainJob ? { [small.trainJob.metadata.uid ?? '']: small.trainJob } : {};
        const workloads = observed.workload ? [observed.workload] : [];
        expect(workloadsToMarkReady(small.workload ? [small.workload] : [], smallJobs, observed.config, T1)).toEqual(
          workloadsToMarkReady(workloads, jobs, observed.config, T1),
        );
      }),
      { numRuns: 500 },
    );
  });
});
