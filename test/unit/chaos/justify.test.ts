// The refusal rules of the chaos checker: no refusal passes on its type or step alone. Without a
// fault in the record, only a Hold of a job the record shows finished is justified; ErrInvalid
// never is, whatever faults there were; a fault explains only within its window.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_TYPES } from '../../../src/model/errors.js';
import type { Answer, CallRecord, FaultRecord } from '../../chaos/history.js';
import { faultsBehind, justifyRefusal } from '../../chaos/justify.js';
import { FAULT_WEIGHTS, type FaultKind, type Operation } from '../../chaos/schedule.js';

const OPTIONS = { callBoundMs: 30_000, gateWindowMs: 160_000 };
const T0 = 10_000_000;

const refusal = fc.record({
  ok: fc.constant(false as const),
  type: fc.constantFrom(...ERROR_TYPES, 'untyped' as const),
  message: fc.constantFrom('start: probe refused', 'write: not proven', 'reach: not proven', 'no answer within timeouts.call', 'it has Succeeded'),
  step: fc.integer({ min: 0, max: 9 }),
}) as fc.Arbitrary<Extract<Answer, { ok: false }>>;
const op = fc.constantFrom<Operation>('start', 'open', 'hold', 'release', 'stop', 'watch');
const kind = fc.constantFrom(...(Object.keys(FAULT_WEIGHTS) as FaultKind[]));
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
        const explains = fault.from <= c.answeredAt && fault.to + OPTIONS.callBoundMs >= c.invokedAt;
        expect(faultsBehind(c, [fault], ['apiserver-restart'], OPTIONS.callBoundMs).length === 1).toBe(explains);
        expect(justifyRefusal(c, [c], [fault], OPTIONS) !== undefined).toBe(explains);
      }),
    );
  });

  it("step 6's webhook lag is justified within the gate window after a restart of the API server, Trainer or Kueue, and by nothing else", () => {
    const lag = call('start', { ok: false, type: 'ErrUnreachable', step: 6, message: 'creating TrainJob c/x: the webhook still does not see runtime copy x, which exists, after 9 denial(s)' });
    const restart = (kind: FaultKind, backMsBefore: number): FaultRecord => ({ index: 1, kind, what: kind, from: T0 - backMsBefore - 5_000, to: T0 - backMsBefore });
    // 100 s after the part was back: past the call window, inside the gate window.
    for (const k of ['apiserver-restart', 'trainer-restart', 'kueue-restart'] as const) {
      expect(justifyRefusal(lag, [lag], [restart(k, 100_000)], OPTIONS)?.rule).toMatch(/webhook not yet seeing/);
    }
    expect(justifyRefusal(lag, [lag], [restart('worker-kill', 100_000)], OPTIONS)).toBeUndefined();
    expect(justifyRefusal(lag, [lag], [restart('trainer-restart', OPTIONS.gateWindowMs + 1_000)], OPTIONS)).toBeUndefined();
    expect(justifyRefusal(lag, [lag], [], OPTIONS)).toBeUndefined();
  });
});
