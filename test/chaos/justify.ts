// Which refusals a chaos run may see, and why (pure). A refusal is accepted only when a rule of the
// contract allows it and the record shows what triggered it: a fault of a kind that can cause it,
// applied while the call ran or recovered shortly before, or (a Hold of a finished job) the record's
// own evidence that the job had finished. Nothing is accepted for its type or its step alone.
import type { Outcome, TrainJobState } from '../../src/model/operations.js';
import type { Answer, CallRecord, FaultRecord } from './history.js';
import { FAULT_WEIGHTS, type FaultKind } from './schedule.js';

export interface JudgeOptions {
  callBoundMs: number;
  /**
   * How long after a fault a step-1 refusal for a backend gate can still be its doing: the probe
   * it caught may take CallBound and the Workload wait to end, and the next preflight comes after a
   * retry pause that doubles while gates stay unproven.
   */
  gateWindowMs: number;
}

export interface Justification {
  /** The contract's rule, in its words. */
  rule: string;
  /** What in the record triggered it: the faults ("fault 12: apiserver-restart, down 4.2 s") or the evidence. */
  because: string[];
}

type Refusal = Extract<Answer, { ok: false }>;

interface FaultRule {
  rule: string;
  applies(call: CallRecord, answer: Refusal): boolean;
  /** The kinds of fault that can cause it. */
  kinds: readonly FaultRecord['kind'][];
  /** How long after its part was back a fault still explains it: the call's CallBound, or the gate window. */
  window: 'call' | 'gate';
}

const ANY_FAULT = Object.keys(FAULT_WEIGHTS) as FaultKind[];
const gate = (answer: Refusal, name: string) => answer.step === 1 && answer.message.startsWith(`${name}: `);

/** The refusals a fault may cause, each with the kinds of fault that can. ErrInvalid is in none. */
export const FAULT_RULES: readonly FaultRule[] = [
  {
    rule: '§8: a worker whose preflight has not ended, or whose probe had no definite answer, leaves a gate unknown: Starts get ErrUnreachable at step 1, retried',
    applies: (call, a) => call.op === 'start' && a.type === 'ErrUnreachable' && a.step === 1,
    kinds: [...ANY_FAULT, 'workers-start'],
    window: 'gate',
  },
  {
    rule: '§8: a probe definitely refused leaves the start gate unproven: Starts get ErrUnsupported at step 1',
    applies: (call, a) => call.op === 'start' && a.type === 'ErrUnsupported' && gate(a, 'start'),
    kinds: ANY_FAULT,
    window: 'gate',
  },
  {
    rule: '§8: the write gate not proven: Starts get ErrReadOnly at step 1, retried later',
    applies: (call, a) => call.op === 'start' && a.type === 'ErrReadOnly' && gate(a, 'write'),
    kinds: ANY_FAULT,
    window: 'gate',
  },
  {
    // The webhooks' informers reconnect with client-go's backoff after their part or the API
    // server restarts: their lag outlasts the call window (77 s after an outage was seen).
    rule: "§6 (note): Trainer's or Kueue's webhook not yet seeing the Start's own runtime copy is ErrUnreachable at step 6, the copy kept; the caller retries",
    applies: (call, a) => call.op === 'start' && a.type === 'ErrUnreachable' && a.step === 6 && a.message.includes('still does not see runtime copy'),
    kinds: ['apiserver-restart', 'trainer-restart', 'kueue-restart'],
    window: 'gate',
  },
  {
    rule: '§6, §9a: no answer within CallBound, or writes that kept losing races, is ErrUnreachable; the caller retries',
    applies: (_, a) => a.type === 'ErrUnreachable' && a.step !== 1,
    kinds: ANY_FAULT,
    window: 'call',
  },
  {
    rule: '§6: a create or a stop unanswered past CallBound is ErrOutcomeUnknown; the caller asks Find and retries',
    applies: (call, a) => (call.op === 'start' || call.op === 'stop') && a.type === 'ErrOutcomeUnknown',
    kinds: ANY_FAULT,
    window: 'call',
  },
  {
    rule: '§6, §9a: RBAC 403 is ErrReadOnly, retried later; a restarted API server answers 403 until its authorizer has synced',
    applies: (_, a) => a.type === 'ErrReadOnly' && a.step !== 1,
    kinds: ['apiserver-restart'],
    window: 'call',
  },
  {
    rule: 'Temporal away: the client gets no typed answer, and retries',
    applies: (_, a) => a.type === 'untyped',
    kinds: ['temporal-restart'],
    window: 'call',
  },
  {
    rule: 'docs/start.md: a call at steps 7-9 unanswered past CallBound (the Workload not made within its bound) is ErrRejected, and the Start is rolled back',
    applies: (call, a) => call.op === 'start' && a.type === 'ErrRejected' && a.step !== undefined && a.step >= 7 && a.step <= 9,
    kinds: ANY_FAULT,
    window: 'call',
  },
];

/** "fault 12: apiserver-restart, down 4.2 s", for a report. */
export const describe = (fault: FaultRecord) => (fault.kind === 'workers-start' ? fault.what : `fault ${fault.index}: ${fault.what}`);

/** The run's first start of its workers, as the rules see it: each refuses Starts until its first preflight ends. */
export const workersStart = (started: { from: number; to: number }): FaultRecord => ({ index: -1, kind: 'workers-start', what: "the workers' first start", ...started });

/** The faults that can have caused a refusal of `call` under `rule`: applied before it was answered, back no longer than the window before it was sent. */
export function faultsBehind(call: Pick<CallRecord, 'invokedAt' | 'answeredAt'>, faults: readonly FaultRecord[], kinds: readonly FaultRecord['kind'][], windowMs: number): FaultRecord[] {
  return faults.filter((f) => kinds.includes(f.kind) && f.hits !== 0 && f.from <= call.answeredAt && f.to + windowMs >= call.invokedAt);
}

const isFinished = (phase: string) => phase === 'Succeeded' || phase === 'Failed';
const stamp = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/** The record's evidence that the lifecycle's job had finished by `at`, if it has any. */
export function finishedBy(calls: readonly CallRecord[], at: number): string | undefined {
  for (const c of calls) {
    if (!c.answer.ok || c.op === 'start' || c.op === 'find') continue;
    const value = c.answer.value as TrainJobState | Outcome;
    if (c.op === 'watch' && isFinished(value.phase) && Date.parse((value as Outcome).finishedAt) <= at) {
      return `Watch answered ${value.phase}, finished at ${(value as Outcome).finishedAt}`;
    }
    if (c.answeredAt <= at && isFinished(value.phase)) return `${c.op} answered ${value.phase} at ${stamp(c.answeredAt)}`;
    if (c.answeredAt <= at && c.seen?.finished) return `the TrainJob was ${c.seen.finished} at ${stamp(c.answeredAt)}`;
  }
  return undefined;
}

/** Why the contract allows `call`'s refusal here, or undefined: a violation. `calls` are its lifecycle's. */
export function justifyRefusal(call: CallRecord, calls: readonly CallRecord[], faults: readonly FaultRecord[], options: JudgeOptions): Justification | undefined {
  const answer = call.answer;
  if (answer.ok || answer.type === 'ErrInvalid') return undefined;
  if (call.op === 'hold' && answer.type === 'ErrRejected') {
    const evidence = finishedBy(calls, call.answeredAt);
    return evidence ? { rule: '§9a: a Hold of a Succeeded or Failed TrainJob is ErrRejected', because: [evidence] } : undefined;
  }
  for (const rule of FAULT_RULES) {
    if (!rule.applies(call, answer)) continue;
    const behind = faultsBehind(call, faults, rule.kinds, rule.window === 'gate' ? options.gateWindowMs : options.callBoundMs);
    if (behind.length > 0) return { rule: rule.rule, because: behind.map(describe) };
  }
  return undefined;
}
