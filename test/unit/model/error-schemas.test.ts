import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { ERROR_TYPES, isErrorType, isFailureDetails } from '../../../src/model/errors.js';
import { fromFailure } from '../../../src/model/error-failures.js';
import { ErrorTypeSchema, FailureDetailsSchema } from '../../../src/model/error-schemas.js';

/** Values near the shape of failure details, and plenty that are not. */
const ref = fc.oneof(
  fc.record({ namespace: fc.string(), name: fc.string(), uid: fc.string() }),
  fc.record({ namespace: fc.string(), name: fc.string() }),
  fc.record({ namespace: fc.string(), name: fc.string(), uid: fc.integer() }),
  fc.record({ namespace: fc.string(), name: fc.string(), uid: fc.string(), extra: fc.string() }),
  fc.constant(null),
  fc.array(fc.string()),
);
const details = fc.oneof(
  fc.record({ reasons: fc.array(fc.string()), step: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ reasons: fc.array(fc.string()), step: fc.integer({ min: 0, max: 9 }), ref }),
  fc.record({ reasons: fc.array(fc.oneof(fc.string(), fc.integer())), step: fc.oneof(fc.integer(), fc.double(), fc.string()) }),
  fc.record({ reasons: fc.array(fc.string()), step: fc.integer(), ref: fc.constant(undefined), other: fc.anything() }),
  fc.anything(),
);

describe('the failure shapes: hand-written checks in errors.ts agree with the zod schemas', () => {
  it('isFailureDetails accepts exactly what FailureDetailsSchema accepts', () => {
    fc.assert(
      fc.property(details, (value) => {
        expect(isFailureDetails(value)).toBe(FailureDetailsSchema.safeParse(value).success);
      }),
      { numRuns: 2000 },
    );
  });

  it('isErrorType accepts exactly what ErrorTypeSchema accepts', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...ERROR_TYPES), fc.string(), fc.anything()), (value) => {
        expect(isErrorType(value)).toBe(ErrorTypeSchema.safeParse(value).success);
      }),
    );
  });

  it('fromFailure keeps valid details and falls back to the message for any other', () => {
    const good = ApplicationFailure.create({ type: 'ErrRejected', message: 'm', details: [{ reasons: ['a', 'b'], step: 7, ref: { namespace: 'n', name: 'x', uid: 'u' } }] });
    expect(fromFailure(good)).toMatchObject({ type: 'ErrRejected', reasons: ['a', 'b'], step: 7, ref: { namespace: 'n', name: 'x', uid: 'u' } });
    const bad = ApplicationFailure.create({ type: 'ErrRejected', message: 'the message', details: [{ reasons: 'not a list', step: 7 }] });
    expect(fromFailure(bad)).toMatchObject({ type: 'ErrRejected', reasons: ['the message'], step: 0, ref: undefined });
    expect(fromFailure(ApplicationFailure.create({ type: 'SomethingElse', message: 'm' }))).toBeUndefined();
  });
});
