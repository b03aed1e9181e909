// Private payloads: with the codec on, a Start whose env holds secrets completes, the history the
// Temporal server stores holds none of them (read raw, by a client without the codec), and the
// codec server decodes it for the Temporal UI as the UI calls it (preflight, then POST /decode with
// its bearer token), and for the temporal CLI given `--codec-auth`, but not without it.
import { randomBytes } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticTokenCheck } from '../../../src/codec/caller-check.js';
import { startCodecServer } from '../../../src/codec/codec-server.js';
import { EncryptionCodec, ENCODING_ENCRYPTED } from '../../../src/codec/encryption-codec.js';
import { parseCodecKeys } from '../../../src/codec/keys.js';
import type { ListeningServer } from '../../../src/observability/listen.js';
import { startRequest } from '../../support/requests.js';
import { dispatchSuite } from '../support/suite.js';
import { workflowShow } from '../support/workflow-show.js';

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type RawPayload = { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null };

const UI = 'http://localhost:8233';
const codec = new EncryptionCodec(
  parseCodecKeys(
    `old:${randomBytes(32).toString('base64')},new:${randomBytes(32).toString('base64')}`,
    'new',
  ),
);
const TOKEN = randomBytes(32).toString('base64url');
const suite = dispatchSuite('codec', { dataConverter: { payloadCodecs: [codec] } });
let server: ListeningServer;
/** The codec server's log lines. */
const logged: Record<string, unknown>[] = [];

beforeAll(async () => {
  server = await startCodecServer('127.0.0.1:0', {
    codecs: [codec],
    origins: [UI],
    callerCheck: staticTokenCheck([{ token: TOKEN }]),
    log: (message, fields) => logged.push({ message, ...fields }),
  });
});
afterAll(async () => {
  await server?.close();
});

/** Every Payload in the history, with where it is (a Payload: an object with metadata and bytes of data). */
function payloadsIn(value: unknown, path = 'history', found: { path: string; payload: RawPayload }[] = []) {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return found;
  const candidate = value as RawPayload;
  if (candidate.data instanceof Uint8Array && candidate.metadata && typeof candidate.metadata === 'object') {
    found.push({ path, payload: candidate });
    return found;
  }
  for (const [key, child] of Object.entries(value)) payloadsIn(child, `${path}.${key}`, found);
  return found;
}

const b64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('base64');
const asJson = (p: RawPayload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
  data: b64(p.data),
});
const encodingOf = (p: RawPayload) => Buffer.from(p.metadata?.encoding ?? []).toString();

describe('private payloads (codec on)', () => {
  const secrets = {
    DB_PASSWORD: `pw-${randomBytes(9).toString('hex')}`,
    API_TOKEN: `tok-${randomBytes(9).toString('hex')}`,
  };
  let history: History;
  let workflowId: string;

  it('a Start whose env holds secrets completes, through the typed client with the codec', async () => {
    const request = startRequest({ spec: { env: { ...secrets, LR: '0.1' } } });
    const handle = await suite.h.client.submit(request);
    workflowId = handle.workflowId;
    const result = await handle.result();
    expect(result.uid).toBeTruthy();
    // The raw history, through the test environment's client, which has no codec.
    history = await suite.h.env.client.workflow
      .getHandle(handle.workflowId, handle.firstExecutionRunId)
      .fetchHistory();
  });

  it('no secret env value appears anywhere in the stored history bytes', () => {
    const bytes = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
    expect(bytes.length).toBeGreaterThan(1000);
    for (const value of Object.values(secrets)) {
      expect(bytes.includes(value)).toBe(false);
      expect(bytes.includes(Buffer.from(value).toString('base64').slice(0, 12))).toBe(false);
    }
    // Every payload the codec sees is sealed. What stays in the clear is what the server reads (search
    // attributes) and the SDK's own marker data: a local activity's ids and times (not its result),
    // a patch's id.
    const clear = payloadsIn(history).filter(({ payload }) => encodingOf(payload) !== ENCODING_ENCRYPTED);
    for (const { path } of clear) {
      expect(path).toMatch(
        /searchAttributes\.indexedFields|markerRecordedEventAttributes\.details\.(data|patch-data)\./,
      );
    }
    const input = payloadsIn(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input);
    expect(input.map(({ payload }) => encodingOf(payload))).toEqual([ENCODING_ENCRYPTED]);
  });

  it('the codec server decodes the stored payloads for the UI: preflight, then POST /decode with its headers and token', async () => {
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: UI,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Content-Type, X-Namespace/);

    const sealed = payloadsIn(history).filter(({ payload }) => encodingOf(payload) === ENCODING_ENCRYPTED);
    const response = await fetch(`${server.url}/decode`, {
      method: 'POST',
      headers: {
        Origin: UI,
        'Content-Type': 'application/json',
        'X-Namespace': suite.h.env.namespace ?? 'default',
        Authorization: `Bearer ${TOKEN}`,
      },
      body: JSON.stringify({ payloads: sealed.map(({ payload }) => asJson(payload)) }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(UI);
    const { payloads } = (await response.json()) as {
      payloads: { metadata: Record<string, string>; data: string }[];
    };
    expect(payloads).toHaveLength(sealed.length);
    const plaintext = payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8'));
    // The Start's input, as the UI shows it.
    const input = sealed.findIndex(({ path }) =>
      path.includes('workflowExecutionStartedEventAttributes.input'),
    );
    expect(JSON.parse(plaintext[input]!).spec.env).toEqual({ ...secrets, LR: '0.1' });
    // The TrainJob the createTrainJob activity was given carries them in spec.trainer.env.
    const all = plaintext.join('\n');
    for (const value of Object.values(secrets)) expect(all).toContain(value);
  });

  it('the temporal CLI decodes through it with --codec-auth "Bearer <token>", and without it shows the input still sealed', async () => {
    const show = (...auth: string[]) => workflowShow(workflowId, server.url, auth);
    /** The Start's input as the CLI printed it: the first event's, its data decoded from base64. */
    const inputOf = (stdout: string) => {
      const events = (JSON.parse(stdout) as { events: Record<string, unknown>[] }).events;
      const started = events[0]!.workflowExecutionStartedEventAttributes as {
        input: { payloads: { metadata: Record<string, string>; data: string }[] };
      };
      const [payload] = started.input.payloads;
      return {
        encoding: Buffer.from(payload!.metadata.encoding!, 'base64').toString(),
        data: Buffer.from(payload!.data, 'base64').toString(),
      };
    };
    logged.length = 0;
    const decoded = inputOf(await show('--codec-auth', `Bearer ${TOKEN}`));
    expect(decoded.encoding).toBe('json/plain');
    expect((JSON.parse(decoded.data) as { spec: { env: unknown } }).spec.env).toEqual({
      ...secrets,
      LR: '0.1',
    });
    expect(logged.filter((l) => l.message === 'codec server refused')).toEqual([]);
    expect(logged.some((l) => l.status === 200 && l.caller === 'static token 1')).toBe(true);

    logged.length = 0;
    const sealed = await show().catch(
      (error: { stdout?: string; message: string }) => error.stdout ?? error.message,
    );
    for (const value of Object.values(secrets)) expect(sealed).not.toContain(value);
    if (sealed.trimStart().startsWith('{')) expect(inputOf(sealed).encoding).toBe(ENCODING_ENCRYPTED);
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged)
      expect(line).toMatchObject({
        message: 'codec server refused',
        status: 401,
        reason: 'no Authorization header',
      });
  });
});
