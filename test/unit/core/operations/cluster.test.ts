// `cluster` in TrainJobState and Outcome (docs/contract.md §11): the worker cluster MultiKueue chose,
// read from the TrainJob's own Workload's status.clusterName once it is there, and absent otherwise.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBeingDeleted } from '../../../../src/core/objects/deletion.js';
import { stateOf } from '../../../../src/core/operations/phase.js';
import { watchOutcome } from '../../../../src/core/operations/watch-outcome.js';
import { OutcomeSchema, TrainJobStateSchema } from '../../../../src/model/operations.js';
import { arbObserved, condition, KUEUE_CONFIG, OTHER_UID, PLAIN, REF, T0, T1, trainJob, workload } from '../operation-fixtures.js';

const complete = trainJob({ conditions: [condition('Complete', 'True', 'AllJobsCompleted', T0)] });

describe('cluster', () => {
  it("is the Workload's status.clusterName in a TrainJobState and a Watch's Outcome", () => {
    const observed = { config: KUEUE_CONFIG, trainJob: trainJob({ gatedBy: '' }), workload: workload({ cluster: 'worker-1' }) };
    const state = stateOf(REF, observed);
    expect(state.cluster).toBe('worker-1');
    expect(TrainJobStateSchema.parse(state)).toEqual(state);
    const outcome = watchOutcome(REF, { config: KUEUE_CONFIG, trainJob: complete, workload: workload({ cluster: 'worker-1' }), pods: [], observedAt: T1 });
    expect(outcome).toMatchObject({ phase: 'Succeeded', cluster: 'worker-1' });
    expect(OutcomeSchema.parse(outcome)).toEqual(outcome);
  });

  it('is absent (no key) before Kueue chose one, in plain mode, and for a Workload not this TrainJob\'s', () => {
    for (const observed of [
      { config: KUEUE_CONFIG, trainJob: trainJob(), workload: workload() },
      { config: KUEUE_CONFIG, trainJob: trainJob(), workload: workload({ cluster: '' }) },
      { config: PLAIN, trainJob: trainJob(), workload: workload({ cluster: 'worker-1' }) },
      { config: KUEUE_CONFIG, trainJob: trainJob(), workload: workload({ cluster: 'worker-1', jobUid: OTHER_UID }) },
    ]) {
      expect(Object.keys(stateOf(REF, observed))).not.toContain('cluster');
    }
  });

  it('property: present exactly when Kueue mode reads a TrainJob of the ref and its own Workload, not being deleted, names a cluster', () => {
    fc.assert(
      fc.property(arbObserved, (observed) => {
        const { trainJob: tj, workload: wl } = observed;
        const name = wl?.status?.clusterName;
        const known =
          observed.config.mode === 'kueue' &&
          tj?.metadata?.uid === REF.uid &&
          wl !== undefined &&
          wl.metadata?.labels?.['kueue.x-k8s.io/job-uid'] === REF.uid &&
          !isBeingDeleted(wl) &&
          typeof name === 'string' &&
          name !== '';
        expect(stateOf(REF, observed).cluster).toBe(known ? name : undefined);
        const outcome = watchOutcome(REF, { ...observed, pods: [], observedAt: T1 });
        if (outcome && outcome.phase !== 'Absent') expect(outcome.cluster).toBe(known ? name : undefined);
      }),
    );
  });
});
