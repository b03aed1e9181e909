// One job's lifecycle as dispatch would send it, whatever the nemesis does meanwhile: Start, then
// the plan's operations in order, Watch beside them, each call retried when its answer invites a
// retry (ErrUnreachable, at step 1 too, ErrReadOnly, ErrOutcomeUnknown after a Find, a step-1
// refusal while an earlier ErrOutcomeUnknown is unresolved, or no typed answer at all: Temporal
// away) and sent twice at once when the plan says so. Every try and its answer are recorded, with,
// after an ok answer, the TrainJob an admin read found right then (the checker compares them).
import type { KubeClients } from '../../src/kube/clients.js';
import type { DispatchKubeflowClient } from '../../src/client/dispatch-client.js';
import { trainJobName } from '../../src/core/start/names.js';
import { Trainer } from '../../src/model/constants.js';
import { DispatchError } from '../../src/model/errors.js';
import type { Outcome, TrainJobRef, TrainJobState } from '../../src/model/operations.js';
import type { StartRequest } from '../../src/model/request.js';
import type { StartResult } from '../../src/model/results.js';
import type { Answer, CallRecord, LifecycleRecord, Seen } from './history.js';
import { SHAPES, type LifecyclePlan, type Mode, type Operation } from './schedule.js';

export interface DriverContext {
  clients: Record<Mode, DispatchKubeflowClient>;
  /** Admin clients straight to the API server, for Find and the read after each ok answer. */
  kube: KubeClients;
  /** The run's namespace, where the lifecycles' TrainJobs are. */
  namespace: string;
  callBoundMs: number;
  request(plan: LifecyclePlan): StartRequest;
  record(call: CallRecord): void;
  /** How long one call may go on being retried before the lifecycle gives up. */
  callDeadlineMs: number;
  /** Aborted when the run's time budget has run out: every call still unanswered, or to be retried, is given up. */
  outOfBudget?: AbortSignal;
  /** Runs one call so that aborting `signal` cancels its Temporal requests. */
  cancellable<T>(signal: AbortSignal, send: () => Promise<T>): Promise<T>;
  /**
   * A call given up on, aborted: the run lets it settle before closing the Temporal connection
   * (a request the client retries on a closed connection throws out of its retry timer).
   */
  abandoned(settling: Promise<unknown>): void;
}

/** Answers after which the caller sends the same call again (ErrReadOnly: "later", the gates not proven yet). */
const RETRIED = new Set(['ErrUnreachable', 'ErrOutcomeUnknown', 'ErrReadOnly', 'untyped']);
const RETRY_PAUSE_MS = 1_000;
/** How long the admin read after an answer is retried (the API server may be restarting). */
const SEEN_WITHIN_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function answerOf(error: unknown): Answer {
  if (error instanceof DispatchError) {
    return { ok: false, type: error.type, message: error.reasons.join('; '), step: error.step, ...(error.ref?.uid ? { uid: error.ref.uid } : {}) };
  }
  return { ok: false, type: 'untyped', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

class GaveUp extends Error {
  constructor(
    message: string,
    /** When the call given up on was first sent. */
    readonly since: number,
  ) {
    super(message);
  }
}

/** The TrainJob named `name`, read straight from the API server (not through the fault proxy); undefined if no read answered. */
async function readSeen(kube: KubeClients, namespace: string, name: string): Promise<Seen | undefined> {
  const deadline = Date.now() + SEEN_WITHIN_MS;
  for (;;) {
    try {
      const object = (await kube.custom.getNamespacedCustomObject({ group: Trainer.group, version: Trainer.version, plural: Trainer.trainJobPlural, namespace, name })) as {
        metadata?: { uid?: string; deletionTimestamp?: string };
        status?: { conditions?: { type: string; status: string }[] };
      };
      const finished = object.status?.conditions?.find((c) => c.status === 'True' && (c.type === 'Complete' || c.type === 'Failed'))?.type as Seen['finished'];
      return { ...(object.metadata?.uid ? { uid: object.metadata.uid } : {}), ...(object.metadata?.deletionTimestamp ? { deleting: true } : {}), ...(finished ? { finished } : {}) };
    } catch (error) {
      if ((error as { code?: number }).code === 404) return {};
      if (Date.now() > deadline) return undefined;
      await sleep(RETRY_PAUSE_MS);
    }
  }
}

export async function runLifecycle(ctx: DriverContext, plan: LifecyclePlan): Promise<LifecycleRecord> {
  const request = ctx.request(plan);
  const name = trainJobName(request.job, request.submission);
  const record: LifecycleRecord = { plan, jobId: request.job, submission: request.submission, name };
  const client = ctx.clients[plan.mode];

  /** Sends `op` (twice at once if the plan says so) until an answer that ends it; the first copy's answer. */
  const call = async <T>(op: Operation, send: () => Promise<T>): Promise<Answer> => {
    const copies = plan.duplicated.includes(op) ? 2 : 1;
    const answers = await Promise.all(Array.from({ length: copies }, (_, copy) => untilAnswered(op, copy, send)));
    return answers[0]!;
  };
  const untilAnswered = async <T>(op: Operation, copy: number, send: () => Promise<T>): Promise<Answer> => {
    const since = Date.now();
    const deadline = since + ctx.callDeadlineMs;
    // After ErrOutcomeUnknown the TrainJob may exist: a refusal at step 1 (a gate, nothing done)
    // does not settle that, so a careful caller keeps retrying until an answer that does.
    let unknown = false;
    for (let attempt = 1; ; attempt++) {
      const invokedAt = Date.now();
      // A call that never answers (a Watch of a job that never ends) is given up at the deadline too.
      if (ctx.outOfBudget?.aborted) throw new GaveUp(`${op}: the run's time budget ran out`, since);
      let timer: NodeJS.Timeout | undefined;
      let outOfBudget = () => {};
      const unanswered = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - invokedAt));
        outOfBudget = () => resolve(undefined);
        ctx.outOfBudget?.addEventListener('abort', outOfBudget, { once: true });
      });
      const abort = new AbortController();
      const sent = ctx.cancellable(abort.signal, send).then((value) => ({ ok: true as const, value }), answerOf);
      const answer: Answer | undefined = await Promise.race([sent, unanswered]);
      clearTimeout(timer);
      ctx.outOfBudget?.removeEventListener('abort', outOfBudget);
      if (answer === undefined) {
        abort.abort();
        ctx.abandoned(sent);
        throw new GaveUp(ctx.outOfBudget?.aborted ? `${op}: the run's time budget ran out` : `${op}: no answer within ${ctx.callDeadlineMs} ms`, since);
      }
      const answeredAt = Date.now();
      const seen = answer.ok ? await readSeen(ctx.kube, ctx.namespace, name) : undefined;
      ctx.record({ job: plan.index, op, copy, try: attempt, invokedAt, answeredAt, answer, ...(seen ? { seen } : {}) });
      const unresolved = unknown && !answer.ok && answer.step === 1;
      if (answer.ok || (!RETRIED.has(answer.type) && !unresolved)) return answer;
      if (answer.type === 'ErrOutcomeUnknown') {
        unknown = true;
        await find(copy);
      }
      if (Date.now() > deadline) throw new GaveUp(`${op}: still ${answer.type} after ${ctx.callDeadlineMs} ms: ${answer.message}`, since);
      await sleep(RETRY_PAUSE_MS);
    }
  };
  /** Find, as dispatch asks after ErrOutcomeUnknown, until it answers (recorded: the checker wants InFlight). */
  const find = async (copy: number) => {
    const deadline = Date.now() + ctx.callBoundMs;
    for (let attempt = 1; ; attempt++) {
      const invokedAt = Date.now();
      const answer: Answer = await client
        .find(request.job, request.submission, ctx.kube, ctx.callBoundMs)
        .then((value) => ({ ok: true as const, value }), answerOf);
      ctx.record({ job: plan.index, op: 'find', copy, try: attempt, invokedAt, answeredAt: Date.now(), answer });
      if (answer.ok || Date.now() > deadline) return;
      await sleep(RETRY_PAUSE_MS);
    }
  };

  try {
    const started = await call('start', () => client.startTrainJob(request));
    if (!started.ok) {
      record.ended = { how: 'refused', op: 'start', reason: `${started.type}: ${started.message}` };
      return record;
    }
    const result = started.value as StartResult;
    const ref: TrainJobRef = { namespace: result.namespace, name: result.name, uid: result.uid };
    const send: Record<Exclude<Operation, 'start' | 'watch'>, () => Promise<TrainJobState>> = {
      open: () => client.open(ref),
      hold: () => client.hold(ref),
      release: () => client.release(ref),
      stop: () => client.stop(ref),
    };
    let watching: Promise<Answer> | undefined;
    for (const op of SHAPES[plan.shape] as readonly Operation[]) {
      await sleep(plan.pauseMs);
      if (op === 'watch') {
        watching = call('watch', (): Promise<Outcome> => client.watch(ref));
        // Awaited at the end; a give-up before then is the other operation's to report.
        watching.catch(() => undefined);
        continue;
      }
      // Sent whatever the operation before it answered: each operation is declarative (a Release of
      // a job not held, one that finished say, answers its state).
      await call(op, send[op as keyof typeof send]);
    }
    await watching;
  } catch (error) {
    if (!(error instanceof GaveUp)) throw error;
    const [op = 'start'] = error.message.split(':') as [Operation];
    record.ended = { how: 'gave-up', op, reason: error.message, since: error.since, at: Date.now() };
  }
  return record;
}
