// Step 5's verdict across MultiKueue's worker clusters (src/core/start/worker-copies.ts), from what
// each cluster answered: the step succeeds only when every copy was made; otherwise it is the
// refusal (or ErrUnreachable when none refused), and the undo names exactly the copies this attempt
// made or adopted, never one when an earlier run's TrainJob is kept.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideConflict } from '../../../../src/core/start/create-conflict.js';
import { judgeWorkerCopies, workerClustersOf, workerWindow, type WorkerCopyAnswer } from '../../../../src/core/start/worker-copies.js';
import { Annotations } from '../../../../src/model/constants.js';

const answerArb: fc.Arbitrary<WorkerCopyAnswer> = fc.oneof(
  fc.record({ cluster: fc.string(), do: fc.constantFrom('created' as const, 'adopt' as const), uid: fc.uuid() }),
  fc.record({ cluster: fc.string(), do: fc.constant('refuse' as const), type: fc.constantFrom('ErrRejected' as const, 'ErrReadOnly' as const), reasons: fc.array(fc.string(), { minLength: 1, maxLength: 2 }) }),
  fc.record({ cluster: fc.string(), do: fc.constant('unanswered' as const), reason: fc.string() }),
);
const managerArb = fc.record({ uid: fc.uuid(), earlierTrainJobUid: fc.option(fc.uuid(), { nil: undefined }) }, { requiredKeys: ['uid'] });

describe('judgeWorkerCopies', () => {
  it('property: the step succeeds exactly when every worker cluster made or adopted its copy', () => {
    fc.assert(
      fc.property(managerArb, fc.array(answerArb, { maxLength: 5 }), (manager, answers) => {
        const ok = answers.every((a) => a.do === 'created' || a.do === 'adopt');
        expect(judgeWorkerCopies(manager, answers).ok).toBe(ok);
      }),
    );
  });

  it("property: a failed step undoes exactly this attempt's copies (every one made or adopted, and the manager's), none when an earlier run's TrainJob is kept", () => {
    fc.assert(
      fc.property(managerArb, fc.array(answerArb, { minLength: 1, maxLength: 5 }), (manager, answers) => {
        const verdict = judgeWorkerCopies(manager, answers);
        if (verdict.ok) return;
        const made = answers.flatMap((a) => (a.do === 'created' || a.do === 'adopt' ? [{ cluster: a.cluster, uid: a.uid }] : []));
        expect(verdict.undo).toEqual(manager.earlierTrainJobUid === undefined ? [...made, { uid: manager.uid }] : []);
      }),
    );
  });

  it('property: the type is the refusal when any cluster refused (ErrRejected before ErrReadOnly), else ErrUnreachable; every failing cluster is named', () => {
    fc.assert(
      fc.property(managerArb, fc.array(answerArb, { minLength: 1, maxLength: 5 }), (manager, answers) => {
        const verdict = judgeWorkerCopies(manager, answers);
        if (verdict.ok) return;
        const refusals = answers.flatMap((a) => (a.do === 'refuse' ? [a.type] : []));
        expect(verdict.type).toBe(refusals.length === 0 ? 'ErrUnreachable' : refusals.includes('ErrRejected') ? 'ErrRejected' : 'ErrReadOnly');
        for (const a of answers) {
          if (a.do === 'refuse' || a.do === 'unanswered') expect(verdict.reasons.some((r) => r.startsWith(`worker cluster ${a.cluster}: `))).toBe(true);
        }
      }),
    );
  });
});

describe('the worker clusters of a Start', () => {
  const clusters = [{ name: 'w1', kubeconfig: '/w1' }];
  it('are kueue.multiKueue\'s in Kueue mode only; none without it (inputs recorded before it)', () => {
    expect(workerClustersOf({ mode: 'kueue', kueue: { multiKueue: { clusters } } })).toEqual(clusters);
    expect(workerClustersOf({ mode: 'plain', kueue: { multiKueue: { clusters } } })).toEqual([]);
    expect(workerClustersOf({ mode: 'kueue', kueue: {} })).toEqual([]);
    expect(workerClustersOf({})).toEqual([]);
  });

  it("are asked until two thirds of the attempt's bound, the last third left to the undo", () => {
    expect(workerWindow({ boundMs: 30_000, attemptStartMs: 1_000, nowMs: 1_000 }, 10_000)).toEqual({ deadline: 21_000, requestTimeoutMs: 10_000 });
    // A fold whose step 2 took 15 s: 5 s left, each request cut there.
    expect(workerWindow({ boundMs: 30_000, attemptStartMs: 1_000, nowMs: 16_000 }, 10_000)).toEqual({ deadline: 21_000, requestTimeoutMs: 5_000 });
    // The window spent: still one request of a sixth of the bound.
    expect(workerWindow({ boundMs: 30_000, attemptStartMs: 1_000, nowMs: 25_000 }, 10_000)).toEqual({ deadline: 21_000, requestTimeoutMs: 5_000 });
    expect(workerWindow({ boundMs: 0, attemptStartMs: 0, nowMs: 5 }, 100)).toEqual({ deadline: 305, requestTimeoutMs: 100 });
  });

  it('property: the window ends within two thirds of a bound from now and from the attempt\'s start; a request is 1 ms to requestTimeoutMs, at most a sixth of the bound past the window', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600_000 }), fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 1, max: 60_000 }), (boundMs, start, nowMs, request) => {
        const w = workerWindow({ boundMs, attemptStartMs: start, nowMs }, request);
        expect(w.deadline).toBeLessThanOrEqual(nowMs + Math.floor((boundMs * 2) / 3));
        expect(w.deadline).toBeGreaterThanOrEqual(nowMs - boundMs + Math.floor((boundMs * 2) / 3));
        expect(w.requestTimeoutMs).toBeGreaterThanOrEqual(1);
        expect(w.requestTimeoutMs).toBeLessThanOrEqual(request);
        expect(nowMs + w.requestTimeoutMs).toBeLessThanOrEqual(Math.max(w.deadline, nowMs + Math.max(1, Math.floor(boundMs / 6))));
      }),
    );
  });
});

describe("step 5's conflict rule with a token (a worker cluster's copy)", () => {
  const wanted = { metadata: { name: 'c', namespace: 'ml', annotations: { [Annotations.attemptToken]: 'tok' } }, spec: { a: 1 } };
  const rule = { adopt: 'unowned-same-spec' as const, wanted, token: 'tok' };
  it('adopts an unowned copy of the same spec only when it carries the token', () => {
    expect(decideConflict({ where: 'x', existing: { ...wanted, metadata: { ...wanted.metadata, uid: 'u' } }, rule })).toEqual({ do: 'adopt', uid: 'u' });
    expect(decideConflict({ where: 'x', existing: { ...wanted, metadata: { name: 'c', uid: 'u' } }, rule })).toMatchObject({ do: 'refuse', type: 'ErrRejected', reasons: ["x already exists with attempt token (none); this attempt's is tok"] });
  });
  it('without a token (the manager), the seed\'s rule: any unowned copy of the same spec', () => {
    expect(decideConflict({ where: 'x', existing: { ...wanted, metadata: { name: 'c', uid: 'u' } }, rule: { adopt: 'unowned-same-spec', wanted } })).toEqual({ do: 'adopt', uid: 'u' });
  });
});
