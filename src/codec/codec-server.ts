// The codec server for the Temporal UI and CLI (Temporal's Codec Server Protocol): POST /encode and
// POST /decode take and return {"payloads": [{"metadata": {k: base64}, "data": base64}]}; each is
// also served under a namespace segment (/<namespace>/decode) for the CLI's --codec-endpoint
// templating. The UI calls it from the browser, so it answers CORS for the UI's origin only, with the
// headers the UI sends (Content-Type, X-Namespace, and Authorization and Authorization-Extras when it
// passes the user's tokens) and credentials allowed (the UI's "include cross-origin credentials").
//
// It returns plaintext, so every POST passes the caller check first (caller-check.ts: 401 without a
// bearer token, 403 with one that does not pass), then, when the token carries a namespace scope,
// the namespace check (namespace-scope.ts: 403 naming a namespace outside it, 400 naming none); a preflight carries no credentials (browsers never
// send Authorization in one), so it is answered on the origin alone. Each refusal is one log line
// with its reason and the remote address, never the token. Over TLS when given a certificate.
// GET /healthz answers anyone, for probes: it says nothing but that the server is up.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { listen, type ListeningServer, type TlsFiles } from '../observability/listen.js';
import type { CallerCheck } from './caller-verdict.js';
import { CodecError } from './encryption-codec.js';
import { authorizeNamespace } from './namespace-scope.js';

/** What the UI sends: Authorization with its user's access token, and Authorization-Extras with their ID token when it has one. */
export const CORS_ALLOW_HEADERS = 'Content-Type, X-Namespace, Authorization, Authorization-Extras';
/** Answered 200 to anyone, for liveness and readiness probes. */
export const HEALTH_PATH = '/healthz';
const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
/** What a caller the check turned away is told; the reason goes to the log only. */
const CALLER_REFUSALS = {
  401: 'a bearer token is needed (Authorization: Bearer <token>)',
  403: 'the bearer token is not accepted',
  503: 'cannot check the bearer token now',
} as const;

export interface CodecServerOptions {
  /** Applied as the SDK applies a data converter's payloadCodecs: encode first to last, decode last to first. */
  codecs: PayloadCodec[];
  /** Browser origins allowed to call, e.g. http://localhost:8233 (the Temporal UI). */
  origins: string[];
  /** Who may call /encode and /decode (caller-check.ts). */
  callerCheck: CallerCheck;
  maxBodyBytes?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const fromJson = (json: JsonPayload, index: number): Payload => {
  const where = `payloads[${index}]`;
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new HttpError(400, `${where}: must be an object`);
  const metadata: Record<string, Uint8Array> = {};
  for (const [key, value] of Object.entries(json.metadata ?? {})) {
    if (typeof value !== 'string')
      throw new HttpError(400, `${where}.metadata.${key}: must be a base64 string`);
    metadata[key] = Buffer.from(value, 'base64');
  }
  if (json.data !== undefined && json.data !== null && typeof json.data !== 'string')
    throw new HttpError(400, `${where}.data: must be a base64 string`);
  return { metadata, data: Buffer.from(json.data ?? '', 'base64') };
};

const toJson = (payload: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  ),
  data: Buffer.from(payload.data ?? []).toString('base64'),
});

async function readBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, `request body is over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'request body is not JSON');
  }
}

async function transform(
  action: 'encode' | 'decode',
  codecs: PayloadCodec[],
  body: unknown,
): Promise<{ payloads: JsonPayload[] }> {
  const list = (body as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(list)) throw new HttpError(400, 'request body must be {"payloads": [...]}');
  let payloads = list.map((p, i) => fromJson(p as JsonPayload, i));
  const order = action === 'encode' ? codecs : [...codecs].reverse();
  try {
    for (const codec of order) payloads = await codec[action](payloads);
  } catch (error) {
    if (error instanceof CodecError) throw new HttpError(422, error.message);
    throw error;
  }
  return { payloads: payloads.map(toJson) };
}

/** The request handler; `startCodecServer` binds it. */
export function codecServerHandler(options: CodecServerOptions): RequestListener {
  const allowed = new Set(options.origins.map((o) => o.replace(/\/+$/, '')));
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = options.log ?? (() => {});

  const answer = (response: ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) response.writeHead(status).end();
    else response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  };

  return (request, response) => {
    const path = new URL(request.url ?? '/', 'http://codec').pathname;
    // For probes: says only that the server answers; not logged, not checked, no CORS.
    if (path === HEALTH_PATH && (request.method === 'GET' || request.method === 'HEAD'))
      return answer(response, 200, { status: 'ok' });
    const origin = request.headers.origin;
    const action = /^(?:\/[^/]+)?\/(encode|decode)$/.exec(path)?.[1] as 'encode' | 'decode' | undefined;
    const namespace = request.headers['x-namespace'];
    const where = {
      method: request.method,
      path,
      namespace,
      origin,
      remoteAddress: request.socket.remoteAddress,
    };
    const done = (status: number, body?: unknown, fields: Record<string, unknown> = {}) => {
      answer(response, status, body);
      log('codec server request', { ...where, status, ...fields });
    };
    /** A caller turned away: the reason is logged, never the token; `shown` is answered and logged, `logged` logged only. */
    const refuse = (
      status: number,
      error: string,
      reason: string,
      shown: Record<string, unknown> = {},
      logged: Record<string, unknown> = {},
    ) => {
      answer(response, status, { error, ...shown });
      log('codec server refused', { ...where, status, reason, ...shown, ...logged });
    };

    // A browser page of any other origin gets no CORS grant and no answer.
    response.setHeader('Vary', 'Origin');
    if (origin !== undefined) {
      if (!allowed.has(origin))
        return refuse(
          403,
          `origin ${origin} is not allowed; start the codec server with --ui-origin ${origin}`,
          `origin ${origin} is not among the allowed origins`,
        );
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    if (!action)
      return done(404, {
        error: `${path}: not found; the codec server answers POST /encode and POST /decode`,
      });
    if (request.method === 'OPTIONS') {
      response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS);
      response.setHeader('Access-Control-Max-Age', '600');
      return done(204);
    }
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST, OPTIONS');
      return done(405, { error: `${request.method} ${path}: only POST` });
    }
    options
      .callerCheck(request.headers.authorization)
      .then((verdict) => {
        if (!verdict.ok) {
          request.resume();
          if (verdict.status === 401) response.setHeader('WWW-Authenticate', 'Bearer realm="codec"');
          return refuse(verdict.status, CALLER_REFUSALS[verdict.status], verdict.reason);
        }
        const access = authorizeNamespace(verdict.scope, request.headers['x-namespace'], path);
        if (!access.ok) {
          request.resume();
          return refuse(
            access.status,
            access.error,
            access.reason,
            { namespace: access.namespace ?? null },
            { caller: verdict.caller },
          );
        }
        return readBody(request, limit)
          .then((body) => transform(action, options.codecs, body))
          .then(
            (result) => done(200, result, { caller: verdict.caller, payloads: result.payloads.length }),
            (error: unknown) =>
              error instanceof HttpError
                ? done(error.status, { error: error.message }, { caller: verdict.caller })
                : done(
                    500,
                    { error: `${action} failed: ${(error as Error).message}` },
                    { caller: verdict.caller },
                  ),
          );
      })
      .catch((error: unknown) => done(500, { error: `${action} failed: ${(error as Error).message}` }));
  };
}

/** Binds the codec server; over HTTPS when given a certificate and its key. */
export function startCodecServer(
  address: string,
  options: CodecServerOptions,
  tls?: TlsFiles,
): Promise<ListeningServer> {
  return listen(address, codecServerHandler(options), tls);
}
