import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ceilSeconds, parseGoDuration } from '../../../src/model/duration.js';

describe('parseGoDuration (Go time.ParseDuration)', () => {
  it.each([
    ['90m', 5_400_000_000_000n],
    ['1.5s', 1_500_000_000n],
    ['2h0m0.25s', 7_200_250_000_000n],
    ['0', 0n],
    ['0s', 0n],
    ['-1s', -1_000_000_000n],
    ['1h30m', 5_400_000_000_000n],
    ['300ms', 300_000_000n],
    ['1us', 1_000n],
    ['1µs', 1_000n],
    ['.5s', 500_000_000n],
    ['1.s', 1_000_000_000n],
  ])('parses %s', (text, nanos) => {
    expect(parseGoDuration(text)).toBe(nanos);
  });

  it.each(['', '1', 'h', '1x', '1.5', '.s', '--1s', '1s ', ' 1s', '9999999999h'])('refuses %j', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });

  it('rounds up to a whole second', () => {
    expect(ceilSeconds(parseGoDuration('1.5s')!)).toBe(2);
    expect(ceilSeconds(parseGoDuration('2s')!)).toBe(2);
    expect(ceilSeconds(parseGoDuration('1ns')!)).toBe(1);
  });

  it('agrees with a sum of whole-unit components', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(59), fc.nat(59), fc.nat(999), (h, m, s, ms) => {
        const text = `${h}h${m}m${s}s${ms}ms`;
        const expected = BigInt(((h * 60 + m) * 60 + s) * 1000 + ms) * 1_000_000n;
        expect(parseGoDuration(text)).toBe(expected);
      }),
    );
  });
});
