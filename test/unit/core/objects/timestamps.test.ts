// epochMillisOf (src/core/objects/timestamps.ts) against Date.parse, which the core may not use.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { epochMillisOf } from '../../../../src/core/objects/timestamps.js';

describe('epochMillisOf', () => {
  it('agrees with Date.parse on every RFC 3339 time Kubernetes or the controller writes (Z, fractions) and on offsets', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2400-12-31T23:59:59Z'), noInvalidDate: true }), fc.constantFrom('iso', 'seconds', 'offset'), (date, form) => {
        const iso = date.toISOString();
        const text = form === 'iso' ? iso : form === 'seconds' ? iso.replace(/\.\d{3}Z$/, 'Z') : iso.replace(/Z$/, '+05:30');
        expect(epochMillisOf(text)).toBe(Date.parse(text));
      }),
    );
  });

  it.each([[undefined], [''], ['2026-01-02'], ['2026-13-02T03:04:05Z'], ['2026-01-02T03:04:05'], ['yesterday'], [12]])('undefined for %j', (text) => {
    expect(epochMillisOf(text)).toBeUndefined();
  });
});
