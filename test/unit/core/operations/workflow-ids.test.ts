// The workflow ids of the operations after Start (docs/contract.md §9), and the schemas of what
// they take and answer (src/model/operations.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdWorkflowId, operationWorkflowId, operationWorkflowIdPrefix, operationWorkflowType, openWorkflowId, parseOperationWorkflowId, releaseWorkflowId, stopWorkflowId, watchWorkflowId, OPERATIONS } from '../../../../src/contract/names.js';
import { OutcomeSchema, TrainJobRefSchema, TrainJobStateSchema } from '../../../../src/model/operations.js';

const REF = {
  namespace: 'ml-jobs',
  name: 'dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12',
  uid: '0b5b2c1e-1111-2222-3333-444455556666',
};

const segment = fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/);
const ref = fc.record({ namespace: segment, name: segment, uid: fc.uuid() });
const op = fc.constantFrom(...OPERATIONS);

describe('lifecycle workflow ids', () => {
  it('are <op>/<namespace>/<name>/<uid>, one per operation', () => {
    const uid = REF.uid;
    expect(openWorkflowId(REF)).toBe(`open/ml-jobs/dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12/${uid}`);
    expect(holdWorkflowId(REF)).toBe(`hold/ml-jobs/dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12/${uid}`);
    expect(releaseWorkflowId(REF)).toBe(`release/ml-jobs/dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12/${uid}`);
    expect(stopWorkflowId(REF)).toBe(`stop/ml-jobs/dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12/${uid}`);
    expect(watchWorkflowId(REF)).toBe(`watch/ml-jobs/dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12/${uid}`);
  });

  it('name the workflow types of docs/contract.md §9', () => {
    expect(OPERATIONS.map(operationWorkflowType)).toEqual([
      'OpenTrainJob',
      'HoldTrainJob',
      'ReleaseTrainJob',
      'StopTrainJob',
      'WatchTrainJob',
    ]);
  });

  it('parse back to the operation and ref they were made of', () => {
    fc.assert(
      fc.property(op, ref, (o, r) => {
        expect(parseOperationWorkflowId(operationWorkflowId(o, r))).toEqual({ op: o, ref: r });
        expect(operationWorkflowId(o, r).startsWith(operationWorkflowIdPrefix(o, r.namespace, r.name))).toBe(
          true,
        );
      }),
    );
  });

  it('differ whenever the operation or any part of the ref differs', () => {
    fc.assert(
      fc.property(op, ref, op, ref, (o1, r1, o2, r2) => {
        const same = o1 === o2 && r1.namespace === r2.namespace && r1.name === r2.name && r1.uid === r2.uid;
        expect(operationWorkflowId(o1, r1) === operationWorkflowId(o2, r2)).toBe(same);
      }),
    );
  });

  it.each([
    'start/ml-jobs/dj-x-s1/a1',
    'open/ml-jobs/dj-x-s1',
    'open/ml-jobs/dj-x-s1/uid/extra',
    'open//dj-x-s1/uid',
    'open/ml-jobs//uid',
    'open/ml-jobs/dj-x-s1/',
    'Open/ml-jobs/dj-x-s1/uid',
    '',
  ])('%j is not an operation id', (id) => {
    expect(parseOperationWorkflowId(id)).toBeUndefined();
  });
});

describe('TrainJobRefSchema', () => {
  it('takes a StartResult’s namespace, name and uid', () => {
    expect(TrainJobRefSchema.parse(REF)).toEqual(REF);
  });

  it.each([
    [{ ...REF, extra: 1 }, ''],
    [{ namespace: REF.namespace, name: REF.name }, 'uid'],
    [{ ...REF, namespace: 'ML' }, 'namespace'],
    [{ ...REF, namespace: 'a'.repeat(64) }, 'namespace'],
    [{ ...REF, name: 'Not/A/Name' }, 'name'],
    [{ ...REF, uid: '' }, 'uid'],
    [{ ...REF, uid: 'a/b' }, 'uid'],
  ])('refuses %j, naming %j', (value, path) => {
    const result = TrainJobRefSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toContain(path);
  });
});

describe('TrainJobStateSchema and OutcomeSchema', () => {
  it('accept the shapes docs/contract.md §9 gives', () => {
    const state = { ref: REF, phase: 'Held', held: true, reasons: ['annotation set'] };
    expect(TrainJobStateSchema.parse(state)).toEqual(state);
    const outcome = {
      ref: REF,
      phase: 'Failed',
      reason: 'FailedJobs',
      message: 'jobset failed due to one or more job failures',
      exitCode: 125,
      finishedAt: '2026-01-01T00:00:00Z',
    };
    expect(OutcomeSchema.parse(outcome)).toEqual(outcome);
  });

  it('refuse a phase outside docs/contract.md §9, a non-integer exit code and a finishedAt that is no time', () => {
    expect(
      TrainJobStateSchema.safeParse({ ref: REF, phase: 'Pending', held: false, reasons: [] }).success,
    ).toBe(false);
    const outcome = {
      ref: REF,
      phase: 'Failed',
      reason: 'r',
      message: 'm',
      finishedAt: '2026-01-01T00:00:00Z',
    };
    expect(OutcomeSchema.safeParse({ ...outcome, phase: 'Running' }).success).toBe(false);
    expect(OutcomeSchema.safeParse({ ...outcome, exitCode: 1.5 }).success).toBe(false);
    expect(OutcomeSchema.safeParse({ ...outcome, finishedAt: 'yesterday' }).success).toBe(false);
    expect(OutcomeSchema.safeParse({ ...outcome, finishedAt: '2026-01-01T00:00:00.123+01:00' }).success).toBe(
      true,
    );
  });
});
