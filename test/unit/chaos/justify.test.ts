// The refusal rules of the chaos checker: no refusal passes on its type or step alone. Without a
// fault in the record, only a Hold of a job the record shows finished is justified; ErrInvalid
// never is, whatever faults there were; a fault explains only within its window.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_TYPES } from '../../../src/model/errors.js';
import type { Answer, CallRecord, FaultRecord } from '../../chaos/history.js';
import { faultsBehind, justifyRefusal } from '../../chaos/justify.js';
import { FAULT_WEIGHTS, type FaultKind, type Operation } from '../../chaos/schedule.js';
import { CHAOS_WINDOWS } from '../../chaos/windows.js';

const OPTIONS = { callBoundMs: 30_000, windows: CHAOS_WINDOWS };
const T0 = 10_000_000;

const refusal = fc.record({
  ok: fc.constant(false as const),
  type: fc.constantFrom(...ERROR_TYPES, 'untyped' as const),
  message: fc.constantFrom('start: probe refused', 'write: not proven', 'reach: not proven', 'no answer within timeouts.call', 'it has Succeeded'),
  step: fc.integer({ min: 0, max: 9 }),
}) as fc.Arbitrary<Extract<Answer, { ok: false }>>;
const op = fc.constantFrom<Operation>('start', 'open', 'hold', 'release', 'stop', 'watch');
const ANY = Object.keys(FAULT_WEIGHTS) as FaultKind[];
const kind = fc.constantFrom(...ANY);
const call = (o: Operation, answer: Answer, at = T0): CallRecord => ({ job: 0, op: o, copy: 0, try: 1, invokedAt: at, answeredAt: at + 2_000, answer });

describe('chaos refusal rules', () => {
  it('without a fault, no refusal is justified but a Hold of a job the record shows finished', () => {
    fc.assert(
      fc.property(op, refusal, (o, answer) => {
        expect(justifyRefusal(call(o, answer), [], [], OPTIONS)).toBeUndefined();
      }),
    );
    const watch = call('watch', { ok: true, value: { ref: { namespace: 'n', name: 'j', uid: 'u' }, phase: 'Succeeded', reason: 'Complete', message: '', finishedAt: new Date(T0 - 1_000).toISOString() } }, T0 + 5_000);
    const hold = call('hold', { ok: false, type: 'ErrRejected', message: 'it has Succeeded' });
    expect(justifyRefusal(hold, [hold, watch], [], OPTIONS)?.because).toEqual([expect.stringContaining('Watch answered Succeeded')]);
  });

  it('ErrInvalid is never justified, whatever fault was active', () => {
    fc.assert(
      fc.property(op, kind, fc.integer({ min: 0, max: 9 }), (o, k, step) => {
        const fault: FaultRecord = { index: 1, kind: k, what: k, from: T0 - 1, to: T0 + 1, hits: 1 };
        expect(justifyRefusal(call(o, { ok: false, type: 'ErrInvalid', message: 'bad', step }), [], [fault], OPTIONS)).toBeUndefined();
      }),
    );
  });

  it('a fault explains a call only if applied before its answer and back at most the window before it was sent', () => {
    fc.assert(
      fc.property(fc.integer({ min: -200_000, max: 200_000 }), fc.integer({ min: 0, max: 20_000 }), (offset, length) => {
        const fault: FaultRecord = { index: 1, kind: 'apiserver-restart', what: '', from: T0 + offset, to: T0 + offset + length };
        const c = call('open', { ok: false, type: 'ErrUnreachable', message: 'no answer' });
        const explains = fault.from <= c.answeredAt && fault.to + OPTIONS.windows.answerMs >= c.invokedAt;
        expect(faultsBehind(c, [fault], ['apiserver-restart'], OPTIONS.windows.answerMs).length === 1).toBe(explains);
        expect(justifyRefusal(c, [c], [fault], OPTIONS) !== undefined).toBe(explains);
      }),
    );
  });

  it("step 6's webhook lag is justified within the webhook's measured lag after a restart of the API server, Trainer or Kueue, and by nothing else", () => {
    const lag = call('start', { ok: false, type: 'ErrUnreachable', step: 6, message: 'creating TrainJob c/x: the webhook still does not see runtime copy x, which exists, after 9 denial(s)' });
    const restart = (kind: FaultKind, backMsBefore: number): FaultRecord => ({ index: 1, kind, what: kind, from: T0 - backMsBefore - 5_000, to: T0 - backMsBefore });
    const window = OPTIONS.windows.answerMs + OPTIONS.windows.webhookLagMs;
    // 60 s after the part was back: past the call's own window, inside the webhook's lag.
    for (const k of ['apiserver-restart', 'trainer-restart', 'kueue-restart'] as const) {
      expect(justifyRefusal(lag, [lag], [restart(k, 60_000)], OPTIONS, 'plain')?.rule).toMatch(/webhook not yet seeing/);
    }
    expect(justifyRefusal(lag, [lag], [restart('worker-kill', 60_000)], OPTIONS, 'plain')).toBeUndefined();
    expect(justifyRefusal(lag, [lag], [restart('trainer-restart', window + 1_000)], OPTIONS, 'plain')).toBeUndefined();
    expect(justifyRefusal(lag, [lag], [], OPTIONS)).toBeUndefined();
  });
});

describe('chaos refusal rules: a refusal is explained only by a part the refused call depends on', () => {
  const at = (kind: FaultRecord['kind'], from: number, to: number, extra: Partial<FaultRecord> = {}): FaultRecord => ({ index: 3, kind, what: kind, from, to, ...extra });
  /** A fault of `kind` over the whole call. */
  const during = (kind: FaultRecord['kind'], extra: Partial<FaultRecord> = {}) => at(kind, T0 - 1_000, T0 + 3_000, { hits: 1, ...extra });
  const typedKube: Extract<Answer, { ok: false }>[] = [
    { ok: false, type: 'ErrUnreachable', step: 6, message: 'creating TrainJob c/x: no answer from the Kubernetes API within timeouts.call' },
    { ok: false, type: 'ErrOutcomeUnknown', step: 6, message: 'creating TrainJob c/x: no answer' },
    { ok: false, type: 'ErrRejected', step: 8, message: 'reading back TrainJob c/x: no answer' },
    { ok: false, type: 'ErrReadOnly', step: 7, message: 'trainjobs is forbidden' },
  ];

  it('a Temporal restart explains no typed Kubernetes refusal; it explains the client losing its answer', () => {
    for (const answer of typedKube) expect(justifyRefusal(call('start', answer), [], [during('temporal-restart')], OPTIONS, 'plain')).toBeUndefined();
    expect(justifyRefusal(call('start', { ok: false, type: 'untyped', message: 'ServiceError: 14 UNAVAILABLE' }), [], [during('temporal-restart')], OPTIONS, 'plain')?.id).toBe('temporal-away');
    // And the API server explains the Kubernetes ones, not the client's.
    for (const answer of typedKube) expect(justifyRefusal(call('start', answer), [], [during('apiserver-restart')], OPTIONS, 'plain')).toBeDefined();
    expect(justifyRefusal(call('start', { ok: false, type: 'untyped', message: 'x' }), [], [during('apiserver-restart')], OPTIONS, 'plain')).toBeUndefined();
  });

  it("a worker kill explains only calls of its worker's mode", () => {
    const unreachable = call('open', typedKube[0]!);
    expect(justifyRefusal(unreachable, [], [during('worker-kill', { mode: 'kueue' })], OPTIONS, 'kueue')?.id).toBe('unanswered');
    expect(justifyRefusal(unreachable, [], [during('worker-kill', { mode: 'kueue' })], OPTIONS, 'plain')).toBeUndefined();
  });

  it("a Kueue restart explains a plain-mode TrainJob write left unanswered (Kueue's TrainJob webhooks fail closed for every TrainJob), and never the Watch", () => {
    expect(justifyRefusal(call('start', typedKube[0]!), [], [during('kueue-restart')], OPTIONS, 'plain')?.id).toBe('unanswered');
    expect(justifyRefusal(call('watch', typedKube[0]!), [], [during('kueue-restart')], OPTIONS, 'plain')).toBeUndefined();
  });

  it('a Watch is never refused (it ends only with an Outcome), whatever fault overlapped it; only the client losing Temporal is excused', () => {
    fc.assert(
      fc.property(refusal, fc.array(kind, { minLength: 1, maxLength: 6 }), (answer, kinds) => {
        const faults = kinds.map((k) => during(k, { mode: 'plain' }));
        const why = justifyRefusal(call('watch', answer), [], faults, OPTIONS, 'plain');
        expect(why === undefined || (answer.type === 'untyped' && kinds.includes('temporal-restart'))).toBe(true);
      }),
    );
  });

  it("step 1's ErrUnreachable must be answered within the fault's return + first answer + CallBound + the probe, per mode", () => {
    const gateUnknown = (answeredAfterBackMs: number) => ({ ...call('start', { ok: false, type: 'ErrUnreachable', step: 1, message: 'start: not proven (the probe had no definite answer)' }), invokedAt: T0 + answeredAfterBackMs - 30_000, answeredAt: T0 + answeredAfterBackMs });
    const { answerMs, probeMs } = OPTIONS.windows;
    const fault = at('apiserver-restart', T0 - 5_000, T0);
    for (const mode of ['plain', 'kueue'] as const) {
      const window = answerMs + OPTIONS.callBoundMs + probeMs[mode];
      expect(justifyRefusal(gateUnknown(window), [], [fault], OPTIONS, mode)?.id).toBe('gate-unknown');
      expect(justifyRefusal(gateUnknown(window + 1), [], [fault], OPTIONS, mode)).toBeUndefined();
    }
  });

  it("step 6's ErrRejected naming the webhook (its lag past timeouts.runtimeLag, amendment 6a) is never justified: the run's lags are far shorter", () => {
    const rejected = call('start', { ok: false, type: 'ErrRejected', step: 6, message: 'creating TrainJob c/x: the webhook still does not see runtime copy x, which has existed for 5m0s (timeouts.runtimeLag)' });
    expect(justifyRefusal(rejected, [], ANY.map((k) => during(k)), OPTIONS, 'kueue')).toBeUndefined();
  });

  it('a try after tries answered untyped attaches to the workflow those began: a fault during them explains it', () => {
    const lost = { ...call('start', { ok: false, type: 'untyped', message: 'ServiceError' }, T0 - 60_000), try: 1 };
    const retried = { ...call('start', typedKube[1]!), try: 2 };
    const fault = at('apiserver-restart', T0 - 55_000, T0 - 40_000);
    expect(justifyRefusal(retried, [retried], [fault], OPTIONS, 'plain')).toBeUndefined();
    expect(justifyRefusal(retried, [lost, retried], [fault], OPTIONS, 'plain')?.id).toBe('outcome-unknown');
  });
});
