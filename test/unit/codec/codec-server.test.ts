// The codec server as the Temporal UI and CLI call it, over loopback HTTP in this process, with a JWT
// caller check (the UI passes its user's access token); caller-check.test.ts covers the check itself.
import { randomBytes, X509Certificate } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { defaultPayloadConverter } from '@temporalio/common';
import { createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtCheck } from '../../../src/codec/caller-check.js';
import { startCodecServer } from '../../../src/codec/codec-server.js';
import { EncryptionCodec } from '../../../src/codec/encryption-codec.js';
import { parseCodecKeys } from '../../../src/codec/keys.js';
import type { ListeningServer } from '../../../src/observability/listen.js';
import { testCertificate, type TestCertificate } from '../../support/test-certificate.js';
import { TEST_AUDIENCE, tokenIssuer, type TokenIssuer } from '../../support/token-issuer.js';

const UI = 'http://localhost:8233';
const codec = new EncryptionCodec(parseCodecKeys(`k1:${randomBytes(32).toString('base64')}`));
let server: ListeningServer;
let issuer: TokenIssuer;
let token: string;
/** What the server logged, as it would write it: one JSON object a line. */
const logged: string[] = [];

beforeAll(async () => {
  issuer = await tokenIssuer();
  token = await issuer.sign();
  server = await startCodecServer('127.0.0.1:0', {
    codecs: [codec],
    origins: [`${UI}/`],
    callerCheck: jwtCheck(createLocalJWKSet(issuer.jwks), issuer.issuer, [TEST_AUDIENCE]),
    log: (message, fields) => logged.push(JSON.stringify({ message, ...fields })),
  });
});
afterAll(async () => {
  await server?.close();
});

const b64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('base64');
const asJson = (p: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null }) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
  data: b64(p.data),
});
const uiHeaders = (): Record<string, string> => ({
  'Content-Type': 'application/json',
  'X-Namespace': 'default',
  Origin: UI,
  Authorization: `Bearer ${token}`,
});
const post = (path: string, body: unknown, headers: Record<string, string> = uiHeaders()) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('codec server (Temporal Codec Server Protocol)', () => {
  it('answers the UI preflight without credentials (a browser sends none in one): its origin, POST, Content-Type, X-Namespace, Authorization and Authorization-Extras, credentials', async () => {
    const response = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: UI,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,authorization-extras,content-type,x-namespace',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(UI);
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'Content-Type, X-Namespace, Authorization, Authorization-Extras',
    );
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('refuses another origin, with no CORS grant: its preflight, and its POST even with a valid token', async () => {
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    const response = await post(
      '/decode',
      { payloads: [] },
      { ...uiHeaders(), Origin: 'http://evil.example' },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('no token: 401 with WWW-Authenticate, and the CORS grant so that the UI can read the status', async () => {
    const { Authorization: _, ...noToken } = uiHeaders();
    for (const path of ['/decode', '/encode', '/default/decode']) {
      const response = await post(path, { payloads: [] }, noToken);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="codec"');
      expect(response.headers.get('access-control-allow-origin')).toBe(UI);
      expect(await response.json()).toEqual({
        error: 'a bearer token is needed (Authorization: Bearer <token>)',
      });
    }
  });

  it('a wrong or expired token: 403, nothing decoded; the reason is logged, not answered', async () => {
    const original = defaultPayloadConverter.toPayload({ env: { TOKEN: 's3cret' } });
    const [sealed] = await codec.encode([original]);
    const expired = await issuer.sign({}, { expiresIn: Math.floor(Date.now() / 1000) - 3600 });
    const forged = await (await tokenIssuer()).sign();
    for (const bad of [expired, forged, `${token.slice(0, -4)}AAAA`]) {
      const response = await post(
        '/decode',
        { payloads: [asJson(sealed!)] },
        { ...uiHeaders(), Authorization: `Bearer ${bad}` },
      );
      expect(response.status).toBe(403);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ error: 'the bearer token is not accepted' });
      expect(text).not.toContain(Buffer.from(original.data!).toString('base64'));
    }
  });

  it('logs each refusal as one JSON line: status, reason, remote address, origin, path; never the token', async () => {
    logged.length = 0;
    const expired = await issuer.sign({}, { expiresIn: Math.floor(Date.now() / 1000) - 3600 });
    await post('/decode', { payloads: [] }, { ...uiHeaders(), Authorization: `Bearer ${expired}` });
    await post('/decode', { payloads: [] }, { 'Content-Type': 'application/json' });
    await post('/decode', { payloads: [] }, { ...uiHeaders(), Origin: 'http://evil.example' });
    await post('/decode', { payloads: [] });
    const lines = logged.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => [l.message, l.status])).toEqual([
      ['codec server refused', 403],
      ['codec server refused', 401],
      ['codec server refused', 403],
      ['codec server request', 200],
    ]);
    expect(lines[0]).toMatchObject({
      reason: 'the token has expired',
      remoteAddress: '127.0.0.1',
      origin: UI,
      path: '/decode',
      method: 'POST',
    });
    expect(lines[1]).toMatchObject({ reason: 'no Authorization header', remoteAddress: '127.0.0.1' });
    expect(lines[2]).toMatchObject({ reason: 'origin http://evil.example is not among the allowed origins' });
    expect(lines[3]).toMatchObject({ caller: 'operator@example.com', payloads: 0 });
    for (const line of logged) {
      expect(line).not.toContain(expired.split('.')[1]!);
      expect(line).not.toContain(token.split('.')[2]!);
    }
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

  it('GET /healthz answers anyone 200, for probes, and is not logged', async () => {
    logged.length = 0;
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(logged).toEqual([]);
  });

  it('a CLI without an Origin is served, given its token', async () => {
    const response = await post(
      '/decode',
      { payloads: [] },
      { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    );
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
      headers: uiHeaders(),
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

describe('codec server over TLS (--tls-cert, --tls-key)', () => {
  let cert: TestCertificate;
  let tlsServer: ListeningServer;
  beforeAll(async () => {
    cert = testCertificate();
    tlsServer = await startCodecServer(
      '127.0.0.1:0',
      {
        codecs: [codec],
        origins: [UI],
        callerCheck: jwtCheck(createLocalJWKSet(issuer.jwks), issuer.issuer, [TEST_AUDIENCE]),
      },
      { cert: cert.cert, key: cert.key },
    );
  });
  afterAll(async () => {
    await tlsServer?.close();
    cert?.remove();
  });

  /** POST over HTTPS, trusting exactly the test certificate. */
  const postTls = (path: string, body: unknown, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string; peer: string }>((resolve, reject) => {
      const request = httpsRequest(
        `${tlsServer.url}${path}`,
        { method: 'POST', headers, ca: cert.cert },
        (response) => {
          let text = '';
          const peer = (response.socket as TLSSocket).getPeerCertificate().fingerprint256;
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode!, body: text, peer }));
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify(body));
    });

  it('serves HTTPS with the given certificate: decodes with the token, 401 without', async () => {
    expect(tlsServer.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const original = defaultPayloadConverter.toPayload({ env: { TOKEN: 's3cret' } });
    const [sealed] = await codec.encode([original]);
    const ok = await postTls('/decode', { payloads: [asJson(sealed!)] }, { ...uiHeaders() });
    expect(ok.status).toBe(200);
    expect(ok.peer).toBe(new X509Certificate(cert.cert).fingerprint256);
    expect((JSON.parse(ok.body) as { payloads: unknown[] }).payloads).toEqual([asJson(original)]);
    const { Authorization: _, ...noToken } = uiHeaders();
    expect((await postTls('/decode', { payloads: [] }, noToken)).status).toBe(401);
  });

  it('answers no plain HTTP on its port', async () => {
    const plain = tlsServer.url.replace('https:', 'http:');
    const outcome = await fetch(`${plain}/decode`, {
      method: 'POST',
      headers: uiHeaders(),
      body: '{"payloads":[]}',
    }).then(
      (r) => r.status,
      (e: Error) => e.message,
    );
    expect(outcome === 400 || typeof outcome === 'string').toBe(true);
    expect(outcome).not.toBe(200);
  });
});

describe('codec server with namespace scopes (--namespace-claim)', () => {
  let scoped: ListeningServer;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    scoped = await startCodecServer('127.0.0.1:0', {
      codecs: [codec],
      origins: [UI],
      callerCheck: jwtCheck(createLocalJWKSet(issuer.jwks), issuer.issuer, [TEST_AUDIENCE], 'namespaces'),
      log: (message, fields) => lines.push({ message, ...fields }),
    });
  });
  afterAll(async () => {
    await scoped?.close();
  });
  const call = async (path: string, namespace: string | undefined, claims: Record<string, unknown>) => {
    const original = defaultPayloadConverter.toPayload({ env: { TOKEN: 's3cret' } });
    const [sealed] = await codec.encode([original]);
    const response = await fetch(`${scoped.url}${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Origin: UI,
        Authorization: `Bearer ${await issuer.sign(claims)}`,
        ...(namespace === undefined ? {} : { 'X-Namespace': namespace }),
      },
      body: JSON.stringify({ payloads: [asJson(path.endsWith('encode') ? original : sealed!)] }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, original };
  };

  it('a token whose claim lists namespace ml-a decodes ml-a (by X-Namespace or by path)', async () => {
    for (const [path, namespace] of [
      ['/decode', 'ml-a'],
      ['/ml-a/decode', undefined],
      ['/ml-a/decode', 'ml-a'],
    ] as const) {
      const { status, body, original } = await call(path, namespace, { namespaces: ['ml-a'] });
      expect(status, path).toBe(200);
      expect(body).toEqual({ payloads: [asJson(original)] });
    }
  });

  it('and is refused ml-b: 403 naming the namespace, nothing decoded, one log line saying who, which namespace and why', async () => {
    lines.length = 0;
    for (const [path, namespace] of [
      ['/decode', 'ml-b'],
      ['/ml-b/decode', undefined],
      ['/encode', 'ml-b'],
    ] as const) {
      const { status, body } = await call(path, namespace, {
        namespaces: ['ml-a'],
        sub: 'alice@example.com',
      });
      expect(status, path).toBe(403);
      expect(body).toEqual({ error: 'this token does not grant namespace ml-b', namespace: 'ml-b' });
    }
    expect(lines).toHaveLength(3);
    for (const line of lines)
      expect(line).toMatchObject({
        message: 'codec server refused',
        status: 403,
        caller: 'alice@example.com',
        namespace: 'ml-b',
        reason: "namespace ml-b is not in the token's scope (namespaces ml-a)",
      });
  });

  it('a token without the claim decodes no namespace; * decodes every one', async () => {
    expect((await call('/decode', 'ml-a', {})).status).toBe(403);
    expect((await call('/decode', 'ml-z', { namespaces: '*' })).status).toBe(200);
  });

  it('a request naming no namespace is refused (400) when scopes are configured, as are a header and a path that disagree', async () => {
    const none = await call('/decode', undefined, { namespaces: '*' });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({
      error: expect.stringMatching(/^no namespace: send X-Namespace/),
      namespace: null,
    });
    const both = await call('/ml-a/decode', 'ml-b', { namespaces: '*' });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe("X-Namespace ml-b and the path's namespace ml-a differ");
  });
});
