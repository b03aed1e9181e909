// Readiness and liveness as pure decisions (src/core/health.ts): ready exactly when the worker runs,
// both pollers poll and Temporal answered (docs/contract.md §10), whatever the gates; the backend
// (the gates) is reported beside it, healthy exactly when every gate is proven; each condition not
// met is named.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liveness, readiness, type HealthObservation, type PollerRunState, type WorkerRunState } from '../../../src/core/health.js';
import type { BackendGates } from '../../../src/model/results.js';

const RUN_STATES: WorkerRunState[] = ['INITIALIZED', 'RUNNING', 'STOPPED', 'STOPPING', 'DRAINING', 'DRAINED', 'FAILED'];
const POLLER_STATES: PollerRunState[] = ['POLLING', 'SHUTDOWN', 'FAILED'];
const PROVEN: BackendGates = { reach: true, write: true, start: true, reasons: [], checkedAt: '2026-12-02T12:00:00.000Z' };

const healthy: HealthObservation = {
  worker: { runState: 'RUNNING', workflowPollerState: 'POLLING', activityPollerState: 'POLLING' },
  temporal: { answered: true },
  gates: PROVEN,
  sinceStartMs: 30_000,
};

const gatesArb: fc.Arbitrary<BackendGates | undefined> = fc.option(
  fc.record({ reach: fc.boolean(), write: fc.boolean(), start: fc.boolean(), startUnknown: fc.boolean() }).map(
    ({ startUnknown, ...gates }) => ({
      ...gates,
      reasons: (['reach', 'write', 'start'] as const).filter((gate) => !gates[gate]).map((gate) => `${gate}: why not`),
      checkedAt: PROVEN.checkedAt,
      ...(startUnknown && !gates.start ? { startUnknown } : {}),
    }),
  ),
  { nil: undefined },
);

const observationArb: fc.Arbitrary<HealthObservation> = fc.record({
  worker: fc.record({
    runState: fc.constantFrom(...RUN_STATES),
    workflowPollerState: fc.constantFrom(...POLLER_STATES),
    activityPollerState: fc.constantFrom(...POLLER_STATES),
  }),
  temporal: fc.oneof(fc.constant({ answered: true as const }), fc.string().map((error) => ({ answered: false as const, error }))),
  gates: gatesArb,
  sinceStartMs: fc.nat(3_600_000),
});

describe('readiness', () => {
  it('is ready with a running worker, both pollers polling and Temporal answering, the backend healthy with every gate proven', () => {
    expect(readiness(healthy)).toEqual({ ok: true, reasons: [], backend: { ok: true, reasons: [] } });
  });

  it('is ready exactly when the worker and Temporal conditions hold, whatever the gates, and otherwise names each one not met', () => {
    fc.assert(
      fc.property(observationArb, (observed) => {
        const { ok, reasons, backend } = readiness(observed);
        const { worker, temporal, gates } = observed;
        const expected = {
          worker: worker.runState === 'RUNNING' && worker.workflowPollerState === 'POLLING' && worker.activityPollerState === 'POLLING',
          temporal: temporal.answered,
        };
        expect(ok).toBe(expected.worker && expected.temporal);
        expect(ok).toBe(reasons.length === 0);
        for (const [condition, met] of Object.entries(expected))
          expect(reasons.some((reason) => reason.startsWith(`${condition}: `)), condition).toBe(!met);
        // The gates never reach the pod's readiness: they are the backend's, reported apart.
        expect(reasons.some((reason) => reason.startsWith('gates: '))).toBe(false);
        const proven = gates !== undefined && gates.reach && gates.write && gates.start;
        expect(backend.ok).toBe(proven);
        expect(backend.ok).toBe(backend.reasons.length === 0);
        expect(backend.reasons.every((reason) => reason.startsWith('gates: '))).toBe(true);
      }),
    );
  });

  it('a draining worker (SIGTERM: no longer RUNNING, its pollers shut down) is not ready, and still alive', () => {
    const draining: HealthObservation = { ...healthy, worker: { runState: 'DRAINING', workflowPollerState: 'SHUTDOWN', activityPollerState: 'SHUTDOWN' } };
    expect(readiness(draining)).toEqual({
      ok: false,
      reasons: [
        'worker: the Temporal worker is DRAINING, not RUNNING',
        'worker: the workflow task poller is SHUTDOWN',
        'worker: the activity task poller is SHUTDOWN',
      ],
      backend: { ok: true, reasons: [] },
    });
    expect(liveness(draining)).toEqual({ ok: true, reasons: [] });
  });

  it('before the first preflight has ended the gates are unknown: ready, the backend saying so', () => {
    expect(readiness({ ...healthy, gates: undefined, sinceStartMs: 4_200 })).toEqual({
      ok: true,
      reasons: [],
      backend: { ok: false, reasons: ['gates: unknown, the first preflight has not ended (4s after start)'] },
    });
  });

  it('names the unproven gates and carries the preflight reasons in the backend, an unknown start gate marked so, and stays ready', () => {
    const gates: BackendGates = {
      ...PROVEN,
      write: false,
      start: false,
      startUnknown: true,
      reasons: ['write: not allowed to patch trainjobs', 'start: the probe did not end within 140s'],
    };
    expect(readiness({ ...healthy, gates })).toEqual({
      ok: true,
      reasons: [],
      backend: {
        ok: false,
        reasons: [
          `gates: write, start (unknown) not proven at ${PROVEN.checkedAt}`,
          'gates: write: not allowed to patch trainjobs',
          'gates: start: the probe did not end within 140s',
        ],
      },
    });
  });

  it('a task queue shared with workers of another namespace is reported in the backend, and stays ready (docs/contract.md §10)', () => {
    const shared = 'task queue q is also polled by workers of namespace team-b (this worker acts in team-a): their workflows are refused here and ours there';
    expect(readiness({ ...healthy, sharedQueue: shared })).toEqual({ ok: true, reasons: [], backend: { ok: false, reasons: [`release: ${shared}`] } });
  });

  it("a Temporal that does not answer makes it unready, with the connection's error", () => {
    expect(readiness({ ...healthy, temporal: { answered: false, error: '14 UNAVAILABLE: connection refused' } })).toEqual({
      ok: false,
      reasons: ["temporal: no answer over the worker's connection: 14 UNAVAILABLE: connection refused"],
      backend: { ok: true, reasons: [] },
    });
  });
});

describe('liveness', () => {
  it('is alive unless the worker or a poller FAILED: stopping and draining are alive', () => {
    fc.assert(
      fc.property(observationArb, (observed) => {
        const { worker } = observed;
        const failed = [worker.runState, worker.workflowPollerState, worker.activityPollerState].includes('FAILED');
        const { ok, reasons } = liveness(observed);
        expect(ok).toBe(!failed);
        expect(reasons.length > 0).toBe(failed);
      }),
    );
  });
});
