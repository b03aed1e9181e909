// The one "call the API and classify the answer" helper every Kubernetes call goes through
// (docs/contract.md §6): an HTTP answer carrying a Status is definite; no answer at all (refused or
// reset connection, a request that outlived its bound, 5xx, 429) is unanswered, and is thrown as a
// KubeUnanswered error. The activities turn it into a retryable failure (activities/failures.ts),
// so that Temporal retries it with backoff until the activity's bound (CallBound); the admission
// check controller and the CLI read it as it is.
import { ApiException, Observable, type ConfigurationOptions } from '@kubernetes/client-node';
import { logKubeCall } from '../observability/kube-log.js';

/** A call the Kubernetes API did not answer; the message names what was attempted. */
export class KubeUnanswered extends Error {
  override readonly name = 'KubeUnanswered';
}

export type KubeAnswer<T> =
  | { answered: 'ok'; value: T }
  | { answered: 'definite'; status: number; reason: string; message: string };

export interface CallContext {
  /** Aborts the request: the activity was cancelled or timed out. */
  signal?: AbortSignal;
  /** How long one HTTP request may stay unanswered before it counts as unanswered. */
  requestTimeoutMs: number;
}

/**
 * The signal one request hangs on: aborted by the context's signal, or by a timer after the request
 * bound. The timer is an AbortController's, held strongly until `release`: Node 20's
 * AbortSignal.timeout is held only weakly inside AbortSignal.any, and a garbage collection during
 * the wait dropped it, so that an unanswered request was only cut by the activity's own timeout at
 * CallBound (nodejs/node#57736; test/unit/kube/request-bound.test.ts).
 */
export function requestBound(ctx: CallContext): { signal: AbortSignal; release: () => void } {
  const cut = new AbortController();
  const onAbort = () => cut.abort(ctx.signal?.reason);
  const timer = setTimeout(
    () => cut.abort(new DOMException(`no answer within ${ctx.requestTimeoutMs} ms`, 'TimeoutError')),
    ctx.requestTimeoutMs,
  );
  if (ctx.signal?.aborted) onAbort();
  else ctx.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: cut.signal,
    release: () => {
      clearTimeout(timer);
      ctx.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** Client options that abort the request on `signal`. */
function requestOptions(signal: AbortSignal): ConfigurationOptions {
  // The object-parameter API hands these straight to its Observable layer, so the middleware
  // answers with the client's own Observable type.
  return {
    middleware: [
      {
        pre: (request) => {
          request.setSignal(signal);
          return new Observable(Promise.resolve(request));
        },
        post: (response) => new Observable(Promise.resolve(response)),
      },
    ],
    middlewareMergeStrategy: 'append',
  };
}

function isUnansweredStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

function statusOf(body: unknown): { reason: string; message: string } {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return { reason: '', message: body };
    }
  }
  const status = (parsed ?? {}) as { reason?: unknown; message?: unknown };
  return {
    reason: typeof status.reason === 'string' ? status.reason : '',
    message: typeof status.message === 'string' ? status.message : '',
  };
}

/**
 * Runs one Kubernetes call. Returns the value or the definite refusal; throws KubeUnanswered when
 * the API did not answer, naming what was attempted.
 */
export async function kubeCall<T>(what: string, ctx: CallContext, call: (options: ConfigurationOptions) => Promise<T>): Promise<KubeAnswer<T>> {
  const startedAt = performance.now();
  const bound = requestBound(ctx);
  try {
    const value = await call(requestOptions(bound.signal));
    logKubeCall(what, { outcome: 'ok' }, startedAt);
    return { answered: 'ok', value };
  } catch (error) {
    if (error instanceof ApiException && !isUnansweredStatus(error.code)) {
      const answer = { answered: 'definite', status: error.code, ...statusOf(error.body) } as const;
      logKubeCall(what, { outcome: 'definite', status: answer.status, reason: answer.reason }, startedAt);
      return answer;
    }
    const failure = unanswered(what, error);
    logKubeCall(what, { outcome: 'unanswered', detail: failure.message }, startedAt);
    throw failure;
  } finally {
    bound.release();
  }
}

export function unanswered(what: string, error: unknown): KubeUnanswered {
  const detail =
    error instanceof ApiException
      ? `HTTP ${error.code} ${statusOf(error.body).message}`.trim()
      : error instanceof Error
        ? ((error as { code?: string }).code ?? error.name) + `: ${error.message.split('\n')[0]}`
        : String(error);
  return new KubeUnanswered(`${what}: no answer from the Kubernetes API (${detail})`);
}

/** "HTTP 422 Invalid: <message>", for reasons that name a definite refusal. */
export function describeRefusal(answer: { status: number; reason: string; message: string }): string {
  return `HTTP ${answer.status}${answer.reason ? ` ${answer.reason}` : ''}${answer.message ? `: ${answer.message}` : ''}`;
}
