// The HTTPS listeners (src/observability/listen.ts) given certificate files: a rotation (the files
// replaced, as a Secret volume's update replaces them) is served from the next connection on, by
// the same server, without a restart; a pair that does not load leaves the previous one serving;
// and the worker's metrics servers serve over it.
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type ListeningServer } from '../../../src/observability/listen.js';
import { serveMetrics, serveSdkMetrics } from '../../../src/observability/metrics-server.js';
import { testCertificate, type TestCertificate } from '../../support/test-certificate.js';

let first: TestCertificate;
let second: TestCertificate;
let dir: string;
const files = () => ({ certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') });
const fingerprint = (cert: TestCertificate) => new X509Certificate(cert.cert).fingerprint256;

/** Replaces both files at once, each by a rename (a new inode), as a Secret volume's swap does. */
function install(cert: { certFile: string }, key: { keyFile: string }): void {
  copyFileSync(cert.certFile, join(dir, 'tls.crt.new'));
  copyFileSync(key.keyFile, join(dir, 'tls.key.new'));
  renameSync(join(dir, 'tls.crt.new'), files().certFile);
  renameSync(join(dir, 'tls.key.new'), files().keyFile);
}

/** GET over a connection of its own (no keep-alive reuse), trusting both test certificates. */
function get(url: string): Promise<{ status: number; body: string; peer: string }> {
  return new Promise((resolve, reject) => {
    const call = request(url, { agent: false, ca: [first.cert, second.cert] }, (response) => {
      const peer = (response.socket as TLSSocket).getPeerCertificate().fingerprint256;
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body, peer }));
    });
    call.on('error', reject);
    call.end();
  });
}

beforeAll(() => {
  first = testCertificate();
  second = testCertificate();
  dir = mkdtempSync(join(tmpdir(), 'dk-tls-listen-'));
  install(first, first);
});
afterAll(() => {
  first?.remove();
  second?.remove();
  rmSync(dir, { recursive: true, force: true });
});

describe('listen over HTTPS from certificate files', () => {
  let server: ListeningServer;
  beforeAll(async () => {
    server = await listen('127.0.0.1:0', (_request, response) => response.end('ok'), files());
  });
  afterAll(() => server?.close());

  it('serves the certificate the files hold, then the rotated one from the next connection, on the same server', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const before = await get(server.url);
    expect(before).toMatchObject({ status: 200, body: 'ok', peer: fingerprint(first) });
    install(second, second);
    expect((await get(server.url)).peer).toBe(fingerprint(second));
    // And again, unchanged files are not a change.
    expect((await get(server.url)).peer).toBe(fingerprint(second));
  });

  it('keeps serving the previous pair when the files hold a certificate and a key that do not match', async () => {
    install(second, second);
    await get(server.url);
    install(first, second);
    const answer = await get(server.url);
    expect(answer).toMatchObject({ status: 200, peer: fingerprint(second) });
    // Once the pair matches again, it is served.
    install(first, first);
    expect((await get(server.url)).peer).toBe(fingerprint(first));
  });

  it('refuses to start on a file it cannot read, naming the flag and the file', async () => {
    await expect(
      listen('127.0.0.1:0', (_request, response) => response.end(), { ...files(), keyFile: join(dir, 'missing.key') }),
    ).rejects.toThrow(/--tls-key .*missing\.key/);
  });
});

describe("the worker's metrics over HTTPS", () => {
  it("serves dispatch's registry, and the Temporal SDK's exporter through its loopback address, over TLS", async () => {
    install(first, first);
    const registry = new Registry();
    registry.setDefaultLabels({ worker: 'tls-test' });
    const exporter = await listen('127.0.0.1:0', (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' }).end('temporal_request 1\n'),
    );
    const dispatch = await serveMetrics('127.0.0.1:0', registry, files());
    const sdk = await serveSdkMetrics('127.0.0.1:0', exporter.url, files());
    try {
      expect(dispatch.url).toMatch(/^https:/);
      expect(await get(`${dispatch.url}/metrics`)).toMatchObject({ status: 200, peer: fingerprint(first) });
      expect(await get(`${sdk.url}/metrics`)).toMatchObject({ status: 200, body: 'temporal_request 1\n', peer: fingerprint(first) });
      expect((await get(`${sdk.url}/other`)).status).toBe(404);
    } finally {
      await Promise.all([exporter.close(), dispatch.close(), sdk.close()]);
    }
  });
});
