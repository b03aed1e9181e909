// Each probe run has its own JobID, so that probes never meet each other's objects (two workers
// probing at once, a copy the garbage collector has not yet removed, a probe whose stop failed).
import fc from 'fast-check';
import { assertReaching } from '../reached.js';
import { describe, expect, it } from 'vitest';
import { isProbeJobId, PROBE_JOB_ID, PROBE_JOB_PREFIX, probeJobId, probeRequest } from '../../../../src/core/start/probe.js';
import { trainJobName } from '../../../../src/core/start/names.js';
import { StartRequestSchema } from '../../../../src/model/request.js';
import { config } from '../../../golden/cases.js';

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

describe('probeJobId', () => {
  it('is a canonical ULID with a zero timestamp and the probe prefix, for any UUID', () => {
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        const id = probeJobId(uuid);
        expect(id).toMatch(ULID);
        expect(id.startsWith(PROBE_JOB_PREFIX)).toBe(true);
        expect(isProbeJobId(id)).toBe(true);
        expect(StartRequestSchema.safeParse(probeRequest(config(), id).request).success).toBe(true);
      }),
    );
  });

  it('gives different UUIDs different JobIDs whenever their first 45 bits differ', () => {
    // fc.pre draws again for a case it skips; all 100 cases must still get past it (../reached.ts).
    assertReaching(100, (reached) =>
      fc.property(fc.uuid(), fc.uuid(), (a, b) => {
        const top45 = (u: string) => BigInt(`0x${u.replace(/-/g, '').slice(0, 12)}`) >> 3n;
        fc.pre(top45(a) !== top45(b));
        reached();
        expect(probeJobId(a)).not.toBe(probeJobId(b));
      }),
    );
  });

  it('names a TrainJob within the 63 characters of a label value', () => {
    const name = trainJobName(probeJobId('ffffffff-ffff-4fff-bfff-ffffffffffff'), 1);
    expect(name).toBe('dj-0000000000dspatchzzzzzzzzz-s1');
  });

  it('refuses a string without enough hex digits', () => {
    expect(() => probeJobId('not-a-uuid')).toThrow(/fewer than 12 hex digits/);
  });

  it('the fixed JobID of offline rendering is a probe JobID too; a real job never is', () => {
    expect(isProbeJobId(PROBE_JOB_ID)).toBe(true);
    expect(isProbeJobId('01JD0Q3J0Y6Q7J7Z4W2X5V0000')).toBe(false);
  });
});
