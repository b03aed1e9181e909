// A typed list's objects as the API server sent them (src/kube/as-sent.ts): CoreV1Api turns every
// metav1.Time into a Date; the decisions compare times as the RFC 3339 strings a watch sends.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asSent } from '../../../src/kube/as-sent.js';

describe('asSent', () => {
  it('gives every Date back as RFC 3339 to the second, whose byte order is time order; the rest unchanged', () => {
    const at = new Date('2026-12-04T21:44:55Z');
    expect(
      asSent({ metadata: { name: 'p', creationTimestamp: at }, status: { containerStatuses: [{ name: 'node', state: { terminated: { exitCode: 125, finishedAt: at } }, ready: false }] } }),
    ).toEqual({ metadata: { name: 'p', creationTimestamp: '2026-12-04T21:44:55Z' }, status: { containerStatuses: [{ name: 'node', state: { terminated: { exitCode: 125, finishedAt: '2026-12-04T21:44:55Z' } }, ready: false }] } });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e9 }), fc.integer({ min: 0, max: 4e9 }), (a, b) => {
        // Typed as what it was given; a Date comes back as a string.
        const [x, y] = [asSent(new Date(a * 1000)) as unknown as string, asSent(new Date(b * 1000)) as unknown as string];
        expect(typeof x).toBe('string');
        expect(x < y).toBe(a < b);
        expect(Date.parse(x)).toBe(a * 1000);
      }),
    );
  });
});
