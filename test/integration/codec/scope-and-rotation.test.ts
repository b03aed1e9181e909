// The codec server as a process (the real bin, configured by DISPATCH_CODEC_* as the manifests
// configure it, over HTTPS with static tokens scoped by namespace) decoding a real Start's history:
// the temporal CLI with a token scoped to the stack's Temporal namespace reads it, one scoped to
// another namespace is refused (403, logged with who, which namespace and why). Then rotation with
// the process running: the token file replaced (a token revoked, one rescoped) and the certificate
// replaced, each taking effect on the next request, with no restart.
import { randomBytes, X509Certificate } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EncryptionCodec, ENCODING_ENCRYPTED } from '../../../src/codec/encryption-codec.js';
import { parseCodecKeys } from '../../../src/codec/keys.js';
import { startCodecServerProcess, type CodecServerProcess } from '../../support/codec-server-process.js';
import { startRequest } from '../../support/requests.js';
import { testCertificate, type TestCertificate } from '../../support/test-certificate.js';
import { stackInfo } from '../support/context.js';
import { dispatchSuite } from '../support/suite.js';
import { workflowShow } from '../support/workflow-show.js';

const KEYS = `k1:${randomBytes(32).toString('base64')}`;
const codec = new EncryptionCodec(parseCodecKeys(KEYS));
const suite = dispatchSuite('codec-scope', { dataConverter: { payloadCodecs: [codec] } });
const OWN = randomBytes(32).toString('base64url');
const OTHERS = randomBytes(32).toString('base64url');
const OTHER_NAMESPACE = 'another-teams-namespace';
const secret = `pw-${randomBytes(9).toString('hex')}`;

let cert: TestCertificate;
let tokenFile: string;
let server: CodecServerProcess;
let workflowId: string;
/** The Start's input as stored: sealed. */
let sealedInput: { metadata: Record<string, string>; data: string };

/** Replaces a file as Kubernetes replaces a Secret's: a new file renamed over the old. */
function replace(file: string, contents: string | Buffer) {
  writeFileSync(`${file}.new`, contents);
  renameSync(`${file}.new`, file);
}

beforeAll(async () => {
  cert = testCertificate();
  tokenFile = join(cert.dir, 'tokens');
  writeFileSync(tokenFile, `${OWN} ${stackInfo().temporal.namespace}\n${OTHERS} ${OTHER_NAMESPACE}\n`);
  server = await startCodecServerProcess({
    DISPATCH_CODEC_KEYS: KEYS,
    DISPATCH_CODEC_TOKEN_FILE: tokenFile,
    DISPATCH_CODEC_TLS_CERT: cert.certFile,
    DISPATCH_CODEC_TLS_KEY: cert.keyFile,
  });
  const handle = await suite.h.client.submit(startRequest({ spec: { env: { DB_PASSWORD: secret } } }));
  workflowId = handle.workflowId;
  await handle.result();
  const history = await suite.h.env.client.workflow.getHandle(workflowId).fetchHistory();
  const [payload] = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
  const b64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('base64');
  sealedInput = {
    metadata: Object.fromEntries(Object.entries(payload?.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
    data: b64(payload?.data),
  };
  expect(Buffer.from(sealedInput.metadata.encoding!, 'base64').toString()).toBe(ENCODING_ENCRYPTED);
}, 180_000);
afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  cert?.remove();
});

/** POST /decode of the Start's sealed input on a connection of its own, trusting `ca`: status, body and the certificate served. */
function decode(token: string, namespace: string, ca: Buffer = cert.cert) {
  return new Promise<{ status: number; body: Record<string, unknown>; served: X509Certificate }>(
    (resolve, reject) => {
      const request = httpsRequest(
        `${server.url}/decode`,
        {
          method: 'POST',
          agent: false,
          ca,
          headers: {
            Authorization: `Bearer ${token}`,
            'Content-Type': 'application/json',
            'X-Namespace': namespace,
          },
        },
        (response) => {
          const served = new X509Certificate((response.socket as TLSSocket).getPeerCertificate().raw);
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () =>
            resolve({
              status: response.statusCode!,
              body: JSON.parse(text) as Record<string, unknown>,
              served,
            }),
          );
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ payloads: [sealedInput] }));
    },
  );
}
const plaintextOf = (body: Record<string, unknown>) =>
  Buffer.from((body.payloads as { data: string }[])[0]!.data, 'base64').toString();

/** `temporal workflow show` of the Start through the codec server, with `token`, trusting its certificate: the payloads it showed. */
async function show(token: string) {
  // Go reads the roots it trusts from SSL_CERT_FILE.
  const stdout = await workflowShow(workflowId, server.url, ['--codec-auth', `Bearer ${token}`], {
    ...process.env,
    SSL_CERT_FILE: cert.certFile,
  }).catch((error: { stdout?: string; message: string }) => error.stdout ?? error.message);
  // The CLI prints each payload's data in base64: what it showed is those decoded.
  return [...stdout.matchAll(/"data": "([A-Za-z0-9+/=]*)"/g)]
    .map((m) => Buffer.from(m[1]!, 'base64').toString())
    .join('\n');
}

describe('codec server authorization by namespace', () => {
  it('the temporal CLI with a token scoped to the namespace reads the Start decoded', async () => {
    const served = server.next((l) => l.message === 'codec server request' && l.status === 200);
    const stdout = await show(OWN);
    expect(stdout).toContain(secret);
    expect(await served).toMatchObject({
      caller: 'static token 1',
      namespace: stackInfo().temporal.namespace,
    });
  });

  it('with a token scoped to another namespace it does not: 403, logged with who, which namespace and why', async () => {
    const refused = server.next((l) => l.message === 'codec server refused');
    const stdout = await show(OTHERS);
    expect(stdout).not.toContain(secret);
    expect(await refused).toMatchObject({
      status: 403,
      caller: 'static token 2',
      namespace: stackInfo().temporal.namespace,
      reason: `namespace ${stackInfo().temporal.namespace} is not in the token's scope (namespaces ${OTHER_NAMESPACE})`,
    });
    const answer = await decode(OTHERS, stackInfo().temporal.namespace);
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      error: `this token does not grant namespace ${stackInfo().temporal.namespace}`,
      namespace: stackInfo().temporal.namespace,
    });
  });
});

describe('rotation without a restart', () => {
  it('a replaced token file is used by the next request: a token revoked is refused, a token rescoped decodes its new namespace', async () => {
    const ns = stackInfo().temporal.namespace;
    expect((await decode(OWN, OTHER_NAMESPACE)).status).toBe(403);
    replace(tokenFile, `${OWN} ${ns},${OTHER_NAMESPACE}\n`);
    const other = await decode(OWN, OTHER_NAMESPACE);
    expect(other.status).toBe(200);
    expect(JSON.parse(plaintextOf(other.body)).spec.env.DB_PASSWORD).toBe(secret);
    expect(await decode(OTHERS, OTHER_NAMESPACE)).toMatchObject({
      status: 403,
      body: { error: 'the bearer token is not accepted' },
    });
    expect(server.lines.filter((l) => l.message === 'codec server reloaded its callers')).toEqual([
      expect.objectContaining({
        file: tokenFile,
        callers: 'static bearer tokens (1), each scoped to its namespaces',
      }),
    ]);
  });

  it('a replaced certificate and key are served on the next connection', async () => {
    const before = await decode(OWN, stackInfo().temporal.namespace);
    expect(before.served.fingerprint256).toBe(new X509Certificate(cert.cert).fingerprint256);
    const renewed = testCertificate();
    try {
      replace(cert.keyFile, renewed.key);
      replace(cert.certFile, renewed.cert);
      const after = await decode(OWN, stackInfo().temporal.namespace, renewed.cert);
      expect(after.status).toBe(200);
      expect(after.served.fingerprint256).toBe(new X509Certificate(renewed.cert).fingerprint256);
      // A client that trusts only the old certificate is now refused by its own TLS check.
      await expect(decode(OWN, stackInfo().temporal.namespace, cert.cert)).rejects.toThrow(
        /self-signed|certificate/i,
      );
      expect(server.lines.some((l) => l.message === 'tls certificate reloaded')).toBe(true);
    } finally {
      renewed.remove();
    }
  });
});
