// The admission check controller's nudge of a Workload MultiKueue left unnominated
// (src/core/admission/multikueue-nudge.ts): dispatch's check, Ready for NUDGE_AFTER_MS while
// MultiKueue's is Pending with no nominated cluster, is written again, still Ready, so that Kueue's
// MultiKueue (which reconciles a Workload only when it changes) nominates the clusters connected by
// then. Examples, then a property: any one condition not met, and there is no write.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NUDGE_AFTER_MS, nudgeCandidates, nudgeDecision } from '../../../../src/core/admission/multikueue-nudge.js';
import type { OperationConfig } from '../../../../src/core/operations/observed.js';
import type { Workload } from '../../../../src/model/kube.js';
import { applyJsonPatch } from '../../../support/json-patch.js';
import { CRDS, crdValidator } from '../../../support/crd-schema.js';
import { CHECK, condition, KUEUE_CONFIG, NS, REF, T0, trainJob, workload } from '../operation-fixtures.js';

const MULTIKUEUE: OperationConfig = { ...KUEUE_CONFIG, kueue: { ...KUEUE_CONFIG.kueue, multiKueue: { clusters: [{ name: 'worker-1', kubeconfig: '/w1' }] } } };
const RESERVED = condition('QuotaReserved', 'True', 'QuotaReserved', 'Quota reserved in ClusterQueue cq');
const after = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const LATER = after(NUDGE_AFTER_MS);

/** A Workload MultiKueue left unnominated: reserved, dispatch's check Ready since T0, MultiKueue's ('other-check') Pending. */
const stalled = (shape: Parameters<typeof workload>[0] = {}) => workload({ check: 'Ready', otherCheck: 'Pending', conditions: [RESERVED], ...shape });
const runnable = () => trainJob({ gatedBy: '', suspend: true });
const nominated = (names: string[]): Workload => {
  const wl = stalled();
  return { ...wl, status: { ...wl.status, nominatedClusterNames: names } };
};

describe('nudgeDecision', () => {
  it('writes the check again, still Ready, with a new lastTransitionTime and a message saying why; what it writes passes the real Kueue v0.19.2 Workload CRD', () => {
    const wl = stalled();
    const d = nudgeDecision(wl, runnable(), MULTIKUEUE, LATER);
    expect(d).toMatchObject({
      action: 'patch',
      write: {
        patch: [
          { op: 'test', path: '/metadata/uid', value: 'wl-uid-1' },
          { op: 'test', path: '/metadata/resourceVersion', value: '200' },
          { op: 'test', path: '/status/admissionChecks/1/name', value: CHECK },
          { op: 'test', path: '/status/admissionChecks/1/state', value: 'Ready' },
          {
            op: 'replace',
            path: '/status/admissionChecks/1',
            value: {
              name: CHECK,
              state: 'Ready',
              lastTransitionTime: LATER,
              message: `TrainJob ${NS}/${REF.name} carries dispatch's labels and is not held; written again at ${LATER}: MultiKueue had nominated no worker cluster since this check was Ready at ${T0} (it reconciles a Workload only when it changes)`,
            },
          },
        ],
      },
    });
    if (d.action !== 'patch') return;
    const written = applyJsonPatch(wl, d.write.patch);
    expect(crdValidator(CRDS.workload, { version: 'v1beta2', unknownRules: 'skip' })(written)).toEqual([]);
    // The new lastTransitionTime is the rate limit: right after, no second write.
    expect(nudgeDecision(written, runnable(), MULTIKUEUE, after(NUDGE_AFTER_MS + 1_000))).toMatchObject({ action: 'none', reason: expect.stringMatching(/under 15 s/) });
    expect(nudgeDecision(written, runnable(), MULTIKUEUE, after(2 * NUDGE_AFTER_MS)).action).toBe('patch');
  });

  it.each([
    ['no worker clusters configured (Kueue mode on one cluster)', stalled(), KUEUE_CONFIG, LATER, /no worker clusters/],
    ['Ready for less than NUDGE_AFTER_MS', stalled(), MULTIKUEUE, after(NUDGE_AFTER_MS - 1), /under 15 s/],
    ['MultiKueue nominated a cluster (it waits on the worker: not stalled)', nominated(['worker-1']), MULTIKUEUE, LATER, /MultiKueue nominated/],
    ['a cluster chosen', stalled({ cluster: 'worker-1' }), MULTIKUEUE, LATER, /status.clusterName/],
    ["dispatch's check still Pending (the Ready write is readyDecision's)", stalled({ check: 'Pending' }), MULTIKUEUE, LATER, /is "Pending", not Ready/],
    ['no other check Pending', stalled({ otherCheck: 'Ready' }), MULTIKUEUE, LATER, /no other admission check is Pending/],
    ['no quota reserved', stalled({ conditions: [] }), MULTIKUEUE, LATER, /QuotaReserved is not True/],
    ['admitted', stalled({ conditions: [RESERVED, condition('Admitted', 'True', 'Admitted')] }), MULTIKUEUE, LATER, /Admitted is True/],
    ['inactive (held)', stalled({ active: false }), MULTIKUEUE, LATER, /spec.active is false/],
    ['being deleted', stalled({ deleting: true }), MULTIKUEUE, LATER, /being deleted/],
    ['of another namespace', stalled({ namespace: 'elsewhere' }), MULTIKUEUE, LATER, /not in namespace/],
  ] as [string, Workload, OperationConfig, string, RegExp][])('none when %s', (_, wl, config, now, reason) => {
    expect(nudgeDecision(wl, runnable(), config, now)).toEqual({ action: 'none', reason: expect.stringMatching(reason) });
  });

  it('none when the TrainJob is held, or was not read', () => {
    expect(nudgeDecision(stalled(), trainJob({ suspend: true, held: 'true' }), MULTIKUEUE, LATER)).toMatchObject({ action: 'none', reason: expect.stringMatching(/is held/) });
    expect(nudgeDecision(stalled(), undefined, MULTIKUEUE, LATER)).toMatchObject({ action: 'none', reason: expect.stringMatching(/no TrainJob of UID/) });
  });
});

describe('the nudge, over what a pass may read', () => {
  it('writes only a Workload that is stalled in every respect, and then only dispatch\'s entry, still Ready', () => {
    fc.assert(
      fc.property(
        fc.record({
          check: fc.constantFrom(undefined, 'Pending', 'Ready', 'Ready', 'Retry'),
          otherCheck: fc.constantFrom(undefined, 'Pending', 'Pending', 'Ready'),
          reserved: fc.boolean(),
          admitted: fc.boolean(),
          active: fc.constantFrom(true, undefined, false),
          cluster: fc.constantFrom(undefined, 'worker-1'),
          nominated: fc.constantFrom([], ['worker-1']),
          waitedMs: fc.integer({ min: 0, max: 3 * NUDGE_AFTER_MS }),
          workerClusters: fc.boolean(),
        }),
        (c) => {
          const base = workload({
            check: c.check,
            otherCheck: c.otherCheck,
            conditions: [...(c.reserved ? [RESERVED] : []), ...(c.admitted ? [condition('Admitted', 'True', 'Admitted')] : [])],
            active: c.active,
            cluster: c.cluster,
          });
          const wl: Workload = { ...base, status: { ...base.status, nominatedClusterNames: c.nominated } };
          const config = c.workerClusters ? MULTIKUEUE : KUEUE_CONFIG;
          const now = after(c.waitedMs);
          const writes = nudgeCandidates([wl], { [runnable().metadata.uid!]: runnable() }, config, now);
          const stalledInEveryRespect =
            c.workerClusters && c.check === 'Ready' && c.otherCheck === 'Pending' && c.reserved && !c.admitted && c.active !== false && c.cluster === undefined && c.nominated.length === 0 && c.waitedMs >= NUDGE_AFTER_MS;
          expect(writes.length).toBe(stalledInEveryRespect ? 1 : 0);
          for (const { write } of writes) {
            const written = applyJsonPatch(wl, write.patch);
            const entries = written.status?.admissionChecks ?? [];
            expect(entries.find((e) => e.name === CHECK)).toMatchObject({ state: 'Ready', lastTransitionTime: now });
            expect(entries.filter((e) => e.name !== CHECK)).toEqual((wl.status?.admissionChecks ?? []).filter((e) => e.name !== CHECK));
          }
        },
      ),
    );
  });
});
