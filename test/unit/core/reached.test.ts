// assertReaching (reached.ts) on properties whose filter lets through all, almost none, or some of
// the generated cases.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertReaching } from './reached.js';

describe('assertReaching: a filtered property must reach its assertions often enough', () => {
  it('counts the cases that reach the assertions, and passes at or above the minimum', () => {
    const counts = assertReaching(100, (reached) =>
      fc.property(fc.nat(), (n) => {
        reached();
        expect(n).toBeGreaterThanOrEqual(0);
      }),
    );
    expect(counts).toEqual({ assertions: 100 });
  });

  it('fails a property whose filter rejects almost every case, though every case it checked held', () => {
    const almostNone = () =>
      assertReaching(50, (reached) =>
        fc.property(fc.integer({ min: 0, max: 999 }), (n) => {
          if (n % 100 !== 0) return; // About 1 case in 100 gets through.
          reached();
          expect(n % 100).toBe(0);
        }),
        { numRuns: 500 },
      );
    expect(almostNone).toThrow(/^\d+ generated cases reached the property's assertions, fewer than its minimum of 50: /);
  });

  it('counts each named branch against its own minimum', () => {
    const build = (reached: (name?: 'even' | 'odd') => void) =>
      fc.property(fc.nat(), (n) => reached(n % 2 === 0 ? 'even' : 'odd'));
    const counts = assertReaching({ even: 10, odd: 10 }, build, { numRuns: 200 });
    expect(counts.even + counts.odd).toBe(200);
    expect(() => assertReaching({ even: 10, odd: 201 }, build, { numRuns: 200 })).toThrow(/reached "odd", fewer than its minimum of 201/);
  });

  it('refuses a branch that has no minimum', () => {
    const thrown = (() => {
      try {
        assertReaching({ even: 1 }, (reached) => fc.property(fc.nat(), () => reached('odd' as 'even')));
      } catch (error) {
        return error as Error;
      }
    })();
    // fast-check reports the predicate's error as the cause of its own.
    expect(String((thrown?.cause as Error | undefined)?.message)).toMatch(/reached\("odd"\): no minimum is set for it/);
  });

  it('still fails on a failing assertion, whatever the count', () => {
    expect(() =>
      assertReaching(1, (reached) =>
        fc.property(fc.nat(), (n) => {
          reached();
          expect(n).toBeLessThan(0);
        }),
      ),
    ).toThrow(/Property failed/);
  });
});
