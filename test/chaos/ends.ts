// What each lifecycle shape intends (pure): the answer each of its calls should end with, and
// whether a lifecycle got there. A lifecycle that only met consistent refusals did not: it
// completed its shape, or the record justifies why not (a rule of the contract and what triggered it).
import type { Outcome, TrainJobState } from '../../src/model/operations.js';
import type { CallRecord, FaultRecord, LifecycleRecord } from './history.js';
import { describe, faultsBehind, justifyRefusal, type JudgeOptions, type Justification } from './justify.js';
import { ALL_FAULT_KINDS, SHAPES, type Operation, type Shape } from './schedule.js';

const STOPS: ReadonlySet<Shape> = new Set(['stop-gated', 'stop-running', 'hold-stop', 'hold-release-stop']);
export const shapeStops = (shape: Shape) => STOPS.has(shape);

/** The phase a job of the shape ends in when it is left to run: its runtime's. */
export const finishedPhase = (shape: Shape) => (shape === 'run-fail' ? 'Failed' : 'Succeeded');

/** The phases each operation should answer in a shape (Start: a ref). Open and Release may find the job already finished. */
export function intendedPhases(shape: Shape, op: Exclude<Operation, 'start'>): readonly string[] {
  const phases: Record<Exclude<Operation, 'start' | 'watch'>, readonly string[]> = {
    open: ['Queued', 'Running', finishedPhase(shape)],
    hold: ['Held'],
    release: ['Queued', 'Running', finishedPhase(shape)],
    stop: ['Absent'],
  };
  if (op === 'watch') return shapeStops(shape) ? ['Absent'] : [finishedPhase(shape)];
  return phases[op];
}

/** How the operations of a lifecycle are called: Start first, then the shape's, each once or twice at once. */
export function plannedCalls(lifecycle: Pick<LifecycleRecord, 'plan'>): { op: Operation; copy: number }[] {
  const { plan } = lifecycle;
  return (['start', ...SHAPES[plan.shape]] as Operation[]).flatMap((op) => Array.from({ length: plan.duplicated.includes(op) ? 2 : 1 }, (_, copy) => ({ op, copy })));
}

/** An ok answer of `call` judged against its shape: 'intended', a justification, or why it is wrong. */
export function judgeOk(shape: Shape, call: CallRecord, calls: readonly CallRecord[]): 'intended' | Justification | string {
  if (!call.answer.ok || call.op === 'find') throw new Error('judgeOk: not an ok answer of an operation');
  if (call.op === 'start') return 'intended';
  const value = call.answer.value as TrainJobState | Outcome;
  const intended = intendedPhases(shape, call.op);
  if (intended.includes(value.phase)) return 'intended';
  if (call.op === 'watch' && value.phase === 'Succeeded' && shapeStops(shape)) {
    const stops = calls.filter((c) => c.op === 'stop');
    const finishedAt = Date.parse((value as Outcome).finishedAt);
    const firstStop = Math.min(...stops.map((c) => c.invokedAt));
    if (finishedAt <= firstStop) {
      return { id: 'watch-finished-before-stop', rule: '§9a: Watch answers a finished job at once; the Stop came after it had finished', because: [`finished at ${(value as Outcome).finishedAt}, the first Stop sent at ${new Date(firstStop).toISOString()}`] };
    }
  }
  return `${call.op} answered ${value.phase}; the shape ${shape} intends ${intended.join(' or ')}`;
}

/** The last answer each copy of each operation was left with. */
function lastOf(calls: readonly CallRecord[], op: Operation, copy: number): CallRecord | undefined {
  let last: CallRecord | undefined;
  for (const c of calls) if (c.op === op && c.copy === copy && (!last || c.try >= last.try)) last = c;
  return last;
}

export interface ShapeVerdict {
  /** What kept the lifecycle from completing its shape; empty when it completed. */
  short: string[];
  justified: Justification[];
  /** The parts of `short` nothing justifies. */
  unjustified: string[];
}

const ANY_FAULT = ALL_FAULT_KINDS;

/** Whether a lifecycle completed its shape: every planned call ended with the answer its shape intends. */
export function judgeShape(lifecycle: LifecycleRecord, calls: readonly CallRecord[], faults: readonly FaultRecord[], options: JudgeOptions): ShapeVerdict {
  const verdict: ShapeVerdict = { short: [], justified: [], unjustified: [] };
  const fall = (what: string, why: Justification | undefined) => {
    verdict.short.push(what);
    if (why) verdict.justified.push(why);
    else verdict.unjustified.push(what);
  };
  const { ended } = lifecycle;
  if (ended?.how === 'gave-up') {
    const ofOp = calls.filter((c) => c.op === ended.op);
    const since = Math.min(...ofOp.map((c) => c.invokedAt), ended.since ?? ended.at ?? Infinity);
    const behind = faultsBehind({ invokedAt: since, answeredAt: ended.at ?? since }, faults, ANY_FAULT, options.callBoundMs, lifecycle.plan.mode);
    const why = behind.length > 0 ? { id: 'gave-up', rule: '§6: the caller retries an unanswered call; the driver gave up at its bound', because: behind.map(describe) } : undefined;
    fall(`gave up at ${ended.op}: ${ended.reason}`, why);
    return verdict;
  }
  for (const { op, copy } of plannedCalls(lifecycle)) {
    const last = lastOf(calls, op, copy);
    const name = `${op}${copy ? ` (copy ${copy})` : ''}`;
    if (!last) {
      // Nothing after a refused Start is sent: the Start's own verdict says why.
      if (ended?.how !== 'refused') fall(`${name} never sent`, undefined);
      continue;
    }
    if (!last.answer.ok) {
      const why = justifyRefusal(last, calls, faults, options, lifecycle.plan.mode);
      // A retryable refusal left unretried is the driver's fault: a careful caller retries it to an answer.
      const retryable = ['ErrUnreachable', 'ErrReadOnly', 'ErrOutcomeUnknown', 'untyped'].includes(last.answer.type);
      fall(`${name} ended ${last.answer.type}${last.answer.step ? ` at step ${last.answer.step}` : ''}: ${last.answer.message}`, retryable ? undefined : why);
      continue;
    }
    const judged = judgeOk(lifecycle.plan.shape, last, calls);
    if (judged === 'intended') continue;
    if (typeof judged === 'string') fall(judged, undefined);
    else fall(`${name} answered ${(last.answer.value as Outcome).phase}`, judged);
  }
  return verdict;
}
