// The codec server as the Temporal UI and CLI call it, over loopback HTTP in this process.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCodecServer } from '../../../src/codec/codec-server.js';
import { EncryptionCodec } from '../../../src/codec/encryption-codec.js';
import { parseCodecKeys } from '../../../src/codec/keys.js';
import type { ListeningServer } from '../../../src/observability/listen.js';

const UI = 'http://localhost:8233';
const codec = new EncryptionCodec(parseCodecKeys(`k1:${randomBytes(32).toString('base64')}`));
let server: ListeningServer;

beforeAll(async () => {
  server = await startCodecServer('127.0.0.1:0', { codecs: [codec], origins: [`${UI}/`] });
});
afterAll(async () => {
  await server?.close();
});

const b64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('base64');
const asJson = (p: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null }) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
  data: b64(p.data),
});
const uiHeaders = { 'Content-Type': 'application/json', 'X-Namespace': 'default', Origin: UI };
const post = (path: string, body: unknown, headers: Record<string, string> = uiHeaders) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('codec server (Temporal Codec Server Protocol)', () => {
  it('answers the UI preflight: its origin, POST, Content-Type and X-Namespace, credentials', async () => {
    const response = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: UI,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-namespace',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(UI);
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')).toMatch(/Content-Type, X-Namespace/);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('refuses another origin, with no CORS grant', async () => {
    const response = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://evil.example' },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('POST /decode returns the plaintext payloads; /<namespace>/decode too; plain payloads pass through', async () => {
    const original = defaultPayloadConverter.toPayload({ env: { TOKEN: 's3cret' } });
    const [sealed] = await codec.encode([original]);
    for (const path of ['/decode', '/default/decode']) {
      const response = await post(path, { payloads: [asJson(sealed!), asJson(original)] });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(UI);
      const { payloads } = (await response.json()) as { payloads: ReturnType<typeof asJson>[] };
      expect(payloads).toEqual([asJson(original), asJson(original)]);
    }
  });

  it('POST /encode seals what /decode opens (the UI encoding a signal or start input)', async () => {
    const original = asJson(defaultPayloadConverter.toPayload('hello'));
    const encoded = (await (await post('/encode', { payloads: [original] })).json()) as {
      payloads: ReturnType<typeof asJson>[];
    };
    expect(Buffer.from(encoded.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe(
      'binary/encrypted',
    );
    const decoded = (await (await post('/decode', encoded)).json()) as { payloads: unknown[] };
    expect(decoded.payloads).toEqual([original]);
  });

  it('a CLI without an Origin is served', async () => {
    const response = await post('/decode', { payloads: [] }, { 'Content-Type': 'application/json' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ payloads: [] });
  });

  it.each([
    ['GET', '/decode', undefined, 405, /only POST/],
    ['POST', '/metrics', '{}', 404, /not found/],
    ['POST', '/decode', 'not json', 400, /not JSON/],
    ['POST', '/decode', '{"payloads": 3}', 400, /must be \{"payloads"/],
    ['POST', '/decode', '{"payloads": [{"data": 7}]}', 400, /payloads\[0\]\.data: must be a base64 string/],
  ])('%s %s %s: %i', async (method, path, body, status, message) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: uiHeaders,
      ...(body !== undefined ? { body } : {}),
    });
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: string }).error).toMatch(message);
  });

  it('a payload under an unknown key is refused with the codec error (422)', async () => {
    const other = new EncryptionCodec(parseCodecKeys(`k9:${randomBytes(32).toString('base64')}`));
    const [sealed] = await other.encode([defaultPayloadConverter.toPayload(1)]);
    const response = await post('/decode', { payloads: [asJson(sealed!)] });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: string }).error).toMatch(
      /encrypted with key k9, which is not among the known keys \(k1\)/,
    );
  });
});
