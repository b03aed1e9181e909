// Which refusals a chaos run may see, and why (pure). A refusal is accepted only when a rule of the
// contract allows it and the record shows what triggered it: a fault of a part the refused call
// depends on, applied while the call ran or back no longer than the rule's measured window before it
// was sent (windows.ts), or (a Hold of a finished job) the record's own evidence that the job had
// finished. Nothing is accepted for its type or its step alone, and nothing for a Watch but the
// client losing Temporal: Watch ends only with an Outcome (docs/contract.md §9a).
import type { Outcome, TrainJobState } from '../../src/model/operations.js';
import type { Answer, CallRecord, FaultRecord } from './history.js';
import { ALL_FAULT_KINDS, type Mode } from './schedule.js';
import type { Windows } from './windows.js';

export interface JudgeOptions {
  callBoundMs: number;
  windows: Windows;
  /** With --multikueue: the worker clusters' names, where the jobs must run. */
  workerClusters?: readonly string[];
  /** The exit code of the `fail` runtime's node container, which a Failed Outcome's exitCode must be when it has one. */
  failExitCode?: number;
}

export interface Justification {
  /** The rule's short name (FaultRule.id, or HOLD_OF_FINISHED_ID). */
  id: string;
  /** The contract's rule, in its words. */
  rule: string;
  /** What in the record triggered it: the faults ("fault 12: apiserver-restart, down 4.2 s") or the evidence. */
  because: string[];
  /** How long after the latest explaining fault's part was back the call was sent, or answered for the rules that bound the answer (0: while it was away). */
  lagMs?: number;
}

type Refusal = Extract<Answer, { ok: false }>;
type Cause = FaultRecord['kind'];

export interface FaultRule {
  /** A short name, for the report's table. */
  id: string;
  rule: string;
  applies(op: CallRecord['op'], answer: Refusal): boolean;
  /** The parts the refused call depends on: the kinds of fault that can cause it. A worker kill explains only calls of its worker's mode. */
  kinds: readonly Cause[];
  /** How long after its part was back a fault still explains the refusal of a call sent then (or answered then: `answered`). */
  windowMs(options: JudgeOptions, mode: Mode): number;
  /**
   * Whether the window bounds the refusal's answer rather than the call's sending: a step-1 refusal
   * comes after the Start waited up to CallBound for a definite gate (amendment 8a), so it is the
   * answer that must not outlast the fault by more than the window.
   */
  answered?: true;
  /** The window in words, for the report and the docs. */
  window: string;
  /** What the answer itself must show, beyond a fault: undefined when it shows it. */
  lacks?(answer: Refusal): string | undefined;
}

const ANY_FAULT = ALL_FAULT_KINDS;
/**
 * The parts a Kubernetes call goes through: the API server, the fault proxy, the worker running it,
 * and the admission webhooks of TrainJob writes. Kueue's TrainJob webhooks (mtrainjob, vtrainjob)
 * are registered for every TrainJob with failurePolicy Fail, so a Kueue restart refuses a plain-mode
 * TrainJob's create or update too ("failed calling webhook", a 500: unanswered). Not Temporal: its
 * restart costs the client its answer (untyped), never a typed Kubernetes refusal.
 */
const KUBE: readonly Cause[] = ['apiserver-restart', 'proxy', 'trainer-restart', 'kueue-restart', 'worker-kill'];
const gate = (answer: Refusal, name: string) => answer.step === 1 && answer.message.startsWith(`${name}: `);
/** Words of a probe or a call that went unanswered: such a probe leaves a gate unknown (ErrUnreachable), never unproven (§8). */
const UNANSWERED = /no answer|unanswered|was not right within|past its bound|timed out/i;
const definite = (answer: Refusal) => (UNANSWERED.test(answer.message) ? `its reasons are those of a probe without a definite answer, which leaves the gate unknown (ErrUnreachable), not unproven: ${answer.message}` : undefined);
const notWatch = (op: CallRecord['op']) => op !== 'watch';
/** Step 5's refusal for a MultiKueue worker cluster: its reasons name the cluster (src/core/start/worker-copies.ts onWorker). */
const atWorkerCluster = (op: CallRecord['op'], a: Refusal) => op === 'start' && a.step === 5 && a.message.includes('worker cluster ');
/** The worker cluster's parts dispatch's calls go through (--multikueue): its API server and the proxy in front of it. */
const WORKER_CLUSTER: readonly Cause[] = ['worker-cluster-apiserver-restart', 'worker-cluster-proxy'];

/** The refusals a fault may cause, each with the parts that can cause it and its window. ErrInvalid is in none. */
export const FAULT_RULES: readonly FaultRule[] = [
  {
    id: 'gate-unknown',
    rule: '§8: a worker whose preflight has not ended, or whose probe had no definite answer, leaves a gate unknown: Starts wait up to CallBound at step 1, then get ErrUnreachable, retried',
    applies: (op, a) => op === 'start' && a.type === 'ErrUnreachable' && a.step === 1,
    kinds: [...ANY_FAULT, 'workers-start'],
    windowMs: ({ callBoundMs, windows }, mode) => windows.answerMs + callBoundMs + windows.probeMs[mode],
    window: 'answered by back + first answer + CallBound + the probe',
    answered: true,
  },
  {
    id: 'gate-unsupported',
    rule: '§8: a probe definitely refused (a definite HTTP answer caused it) leaves the start gate unproven: Starts get ErrUnsupported at step 1 until a preflight proves it',
    applies: (op, a) => op === 'start' && a.type === 'ErrUnsupported' && gate(a, 'start'),
    // A definite denial a fault can cause: the authorizer before it synced (the manager's, or the
    // worker cluster's, where the probe's step 5 makes its copy too), a webhook whose cache lags.
    kinds: ['apiserver-restart', 'trainer-restart', 'kueue-restart', 'worker-cluster-apiserver-restart'],
    windowMs: ({ windows }, mode) => windows.answerMs + 2 * windows.probeMs[mode] + windows.preflightRetryMs,
    window: 'answered by back + first answer + the probe refused + the retry pause + the probe that proves it',
    answered: true,
    lacks: definite,
  },
  {
    id: 'write-gate',
    rule: '§8: the write gate definitely refused: Starts get ErrReadOnly at step 1, retried later',
    applies: (op, a) => op === 'start' && a.type === 'ErrReadOnly' && gate(a, 'write'),
    kinds: ['apiserver-restart'],
    windowMs: ({ windows }, mode) => windows.answerMs + 2 * windows.probeMs[mode] + windows.preflightRetryMs,
    window: 'answered by back + first answer + the preflight refused + the retry pause + the preflight that proves it',
    answered: true,
    lacks: definite,
  },
  {
    id: 'webhook-lag',
    rule: "§6 (note), 6a: Trainer's or Kueue's webhook not yet seeing the Start's own runtime copy is ErrUnreachable at step 6, the copy kept; the caller retries",
    applies: (op, a) => op === 'start' && a.type === 'ErrUnreachable' && a.step === 6 && a.message.includes('still does not see runtime copy'),
    kinds: ['apiserver-restart', 'trainer-restart', 'kueue-restart'],
    windowMs: ({ windows }) => windows.answerMs + windows.webhookLagMs,
    window: "answered by back + first answer + the webhook's cache lag",
    answered: true,
  },
  {
    id: 'worker-cluster-unanswered',
    rule: '§11: a worker cluster that has not answered step 5 two thirds into its bound fails the step, ErrUnreachable naming the cluster, its copies undone; the caller retries',
    applies: (op, a) => a.type === 'ErrUnreachable' && atWorkerCluster(op, a),
    kinds: WORKER_CLUSTER,
    windowMs: ({ windows }) => windows.answerMs,
    window: 'overlapping the call, or back + first answer before it was sent',
  },
  {
    id: 'worker-cluster-rbac-403',
    rule: "§11, §6: a worker cluster's refusal at step 5 for RBAC alone is ErrReadOnly, retried later; its restarted API server answers 403 until its authorizer has synced",
    applies: (op, a) => a.type === 'ErrReadOnly' && atWorkerCluster(op, a),
    kinds: ['worker-cluster-apiserver-restart'],
    windowMs: ({ windows }) => windows.answerMs,
    window: 'overlapping the call, or back + first answer before it was sent',
  },
  {
    id: 'unanswered',
    rule: '§6, §9a: no answer within CallBound, or writes that kept losing races, is ErrUnreachable; the caller retries',
    applies: (op, a) => notWatch(op) && a.type === 'ErrUnreachable' && a.step !== 1,
    kinds: KUBE,
    windowMs: ({ windows }) => windows.answerMs,
    window: 'overlapping the call, or back + first answer before it was sent',
  },
  {
    id: 'outcome-unknown',
    rule: '§6, 6a: a create or a stop unanswered past CallBound (or a create unanswered before the webhook denied the copy) is ErrOutcomeUnknown; the caller asks Find and retries',
    applies: (op, a) => (op === 'start' || op === 'stop') && a.type === 'ErrOutcomeUnknown',
    kinds: KUBE,
    windowMs: ({ windows }) => windows.answerMs,
    window: 'overlapping the call, or back + first answer before it was sent',
  },
  {
    id: 'rbac-403',
    rule: '§6, §9a: RBAC 403 is ErrReadOnly, retried later; a restarted API server answers 403 until its authorizer has synced',
    applies: (op, a) => notWatch(op) && a.type === 'ErrReadOnly' && a.step !== 1,
    kinds: ['apiserver-restart'],
    windowMs: ({ windows }) => windows.answerMs,
    window: 'overlapping the call, or back + first answer before it was sent',
  },
  {
    id: 'temporal-away',
    rule: 'Temporal away: the client gets no typed answer, and retries',
    applies: (_, a) => a.type === 'untyped',
    kinds: ['temporal-restart'],
    windowMs: ({ windows }) => windows.answerMs,
    window: 'overlapping the call, or back + first answer before it was sent',
  },
  {
    id: 'rolled-back',
    rule: 'docs/start.md: a call at steps 7-9 unanswered past CallBound (the Workload not made within its bound) is ErrRejected, and the Start is rolled back',
    applies: (op, a) => op === 'start' && a.type === 'ErrRejected' && a.step !== undefined && a.step >= 7 && a.step <= 9,
    kinds: KUBE,
    windowMs: ({ windows }) => windows.answerMs,
    window: 'overlapping the call, or back + first answer before it was sent',
  },
];

export const HOLD_OF_FINISHED = '§9a: a Hold of a Succeeded or Failed TrainJob is ErrRejected';
export const HOLD_OF_FINISHED_ID = 'hold-of-finished';

/** "fault 12: apiserver-restart, down 4.2 s", for a report. */
export const describe = (fault: FaultRecord) => (fault.kind === 'workers-start' ? fault.what : `fault ${fault.index}: ${fault.what}`);

/** The run's first start of its workers, as the rules see it: each refuses Starts until its first preflight ends. */
export const workersStart = (started: { from: number; to: number }): FaultRecord => ({ index: -1, kind: 'workers-start', what: "the workers' first start", ...started });

/** Whether `fault` can touch a call of `mode`: a worker kill only its own worker's mode (the record names it; a record without it, either). */
export const reaches = (fault: FaultRecord, mode: Mode | undefined) => fault.kind !== 'worker-kill' || fault.mode === undefined || mode === undefined || fault.mode === mode;

/** The faults that can have caused a refusal of `call`: of `kinds`, touching its mode, applied before it was answered, back no longer than the window before it was sent. */
export function faultsBehind(call: Pick<CallRecord, 'invokedAt' | 'answeredAt'>, faults: readonly FaultRecord[], kinds: readonly Cause[], windowMs: number, mode?: Mode): FaultRecord[] {
  return faults.filter((f) => kinds.includes(f.kind) && f.hits !== 0 && reaches(f, mode) && f.from <= call.answeredAt && f.to + windowMs >= call.invokedAt);
}

/**
 * When the workflow behind `call` may have begun: a try that follows tries of the same call answered
 * untyped (the client lost Temporal) attaches to the run those began, which went on meanwhile.
 */
export function spanOf(call: CallRecord, calls: readonly CallRecord[]): Pick<CallRecord, 'invokedAt' | 'answeredAt'> {
  let invokedAt = call.invokedAt;
  for (let t = call.try - 1; t >= 1; t--) {
    const before = calls.find((c) => c.op === call.op && c.copy === call.copy && c.try === t);
    if (!before || before.answer.ok || before.answer.type !== 'untyped') break;
    invokedAt = Math.min(invokedAt, before.invokedAt);
  }
  return { invokedAt, answeredAt: call.answeredAt };
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

/** The rule that covers `call`'s refusal, whatever the record shows: the first that applies. */
export const ruleFor = (call: CallRecord): FaultRule | undefined => (call.answer.ok ? undefined : FAULT_RULES.find((r) => r.applies(call.op, call.answer as Refusal)));

/** Why the contract allows `call`'s refusal here, or undefined: a violation. `calls` are its lifecycle's, `mode` its mode. */
export function justifyRefusal(call: CallRecord, calls: readonly CallRecord[], faults: readonly FaultRecord[], options: JudgeOptions, mode?: Mode): Justification | undefined {
  const answer = call.answer;
  if (answer.ok || answer.type === 'ErrInvalid') return undefined;
  if (call.op === 'hold' && answer.type === 'ErrRejected') {
    const evidence = finishedBy(calls, call.answeredAt);
    return evidence ? { id: HOLD_OF_FINISHED_ID, rule: HOLD_OF_FINISHED, because: [evidence] } : undefined;
  }
  const span = spanOf(call, calls);
  for (const rule of FAULT_RULES) {
    if (!rule.applies(call.op, answer) || rule.lacks?.(answer)) continue;
    const at = rule.answered ? { invokedAt: span.answeredAt, answeredAt: span.answeredAt } : span;
    const behind = faultsBehind(at, faults, rule.kinds, rule.windowMs(options, mode ?? 'kueue'), mode);
    if (behind.length === 0) continue;
    const latest = Math.max(...behind.map((f) => f.to));
    return { id: rule.id, rule: rule.rule, because: behind.map(describe), lagMs: Math.max(0, at.invokedAt - latest) };
  }
  return undefined;
}

/** Why no rule allows `call`'s refusal, in words, for the violation. */
export function unjustifiedBecause(call: CallRecord, options: JudgeOptions, mode?: Mode): string {
  const answer = call.answer as Refusal;
  if (answer.type === 'ErrInvalid') return 'ErrInvalid is never justified: the requests and refs are valid';
  if (call.op === 'hold' && answer.type === 'ErrRejected') return 'a Hold is refused only when the record shows the job had finished by then, and it does not';
  const rule = ruleFor(call);
  if (!rule) return call.op === 'watch' ? 'a Watch ends only with an Outcome (docs/contract.md §9a): no fault justifies its refusal' : 'no rule of the contract allows it';
  const lacking = rule.lacks?.(answer);
  if (lacking) return `${rule.id}: ${lacking}`;
  const kinds = rule.kinds.map((k) => (k === 'worker-kill' && mode ? `worker-kill (${mode})` : k)).join(', ');
  return `${rule.id} needs a fault of [${kinds}] applied before the answer and back at most ${rule.windowMs(options, mode ?? 'kueue') / 1000} s (${rule.window}) before the call was ${rule.answered ? 'answered' : 'sent'}; the record has none`;
}
