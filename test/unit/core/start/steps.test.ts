// The nine steps as data (src/core/start/steps.ts): what each step is called, which activity makes
// its call, what an unanswered call becomes, and what a Start ending there must undo.
import { describe, expect, it } from 'vitest';
import { VALIDATE_STEP } from '../../../../src/core/start/validate.js';
import { ACTIVITY_LABELS, mustUndo, stageLabel, STAGES, STEPS, stepLabel, stepOf, type StepNumber } from '../../../../src/core/start/steps.js';

const ALL = Object.keys(STEPS).map(Number) as StepNumber[];

describe('the steps table', () => {
  it('has the nine steps of Start, in order', () => {
    expect(ALL).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(stepLabel(5)).toBe('5 create runtime copy');
    expect(stepLabel(42)).toBe('42');
  });

  it('gives each unanswered call the type of its step: unreachable before anything exists, unknown for the create, rejected after', () => {
    const unanswered = Object.fromEntries(ALL.filter((n) => 'unanswered' in STEPS[n]).map((n) => [n, (STEPS[n] as { unanswered: string }).unanswered]));
    expect(STAGES.validate.unanswered).toBe('ErrUnreachable');
    expect(unanswered).toEqual({
      2: 'ErrUnreachable',
      5: 'ErrUnreachable',
      6: 'ErrOutcomeUnknown',
      7: 'ErrRejected',
      8: 'ErrRejected',
      9: 'ErrRejected',
    });
  });

  it('the validation run first is step 4: what an operator sees of it says the step its refusals carry', () => {
    expect(stepOf('validate')).toBe(VALIDATE_STEP);
    expect(stageLabel('validate')).toBe(`${VALIDATE_STEP} validate request`);
    expect(ACTIVITY_LABELS.prepareStart).toBe(stageLabel('validate'));
    expect(Object.values(ACTIVITY_LABELS).filter((label) => /^0\b/.test(label))).toEqual([]);
  });

  it('every step that calls an activity names what an unanswered call becomes', () => {
    for (const n of ALL) if ('activity' in STEPS[n]) expect(STEPS[n], `step ${n}`).toHaveProperty('unanswered');
  });
});

describe('mustUndo', () => {
  it('undoes nothing before the runtime copy is created, failed or cancelled', () => {
    for (const n of [1, 2, 3, 4] as const) for (const cancelled of [false, true]) expect(mustUndo(n, cancelled)).toBe(false);
  });

  it('at steps 5 and 6 undoes only a cancellation: a failed create keeps the copy for a retried Start, or its activity deleted it', () => {
    for (const n of [5, 6] as const) expect([mustUndo(n, false), mustUndo(n, true)]).toEqual([false, true]);
  });

  it('from step 7 on, when the TrainJob exists, undoes every ending', () => {
    for (const n of [7, 8, 9] as const) for (const cancelled of [false, true]) expect(mustUndo(n, cancelled)).toBe(true);
  });
});
