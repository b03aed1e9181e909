// `dispatch-kubeflow codec-server` as an operator runs it (the real bin, as a process): it will not
// start without a caller check, and configured by its DISPATCH_CODEC_* variables alone (as the
// Kubernetes and Compose manifests configure it) it serves HTTPS to holders of a static token.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runCli } from '../../support/cli-process.js';
import { testCertificate, type TestCertificate } from '../../support/test-certificate.js';

const KEYS = { DISPATCH_CODEC_KEYS: `k1:${randomBytes(32).toString('base64')}` };
const TOKEN = randomBytes(32).toString('base64url');
let cert: TestCertificate;

beforeAll(() => {
  cert = testCertificate();
  writeFileSync(join(cert.dir, 'tokens'), `${TOKEN}\n`);
});
afterAll(() => cert?.remove());

const post = (url: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const request = httpsRequest(`${url}/decode`, { method: 'POST', headers, ca: cert.cert }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', reject);
    request.end('{"payloads":[]}');
  });

describe('dispatch-kubeflow codec-server', () => {
  it.each([
    [
      'no caller check',
      [],
      /needs a caller check: --jwt-issuer and --jwt-audience .* or --token-file .*--insecure-no-auth serves anyone/,
    ],
    [
      '--tls-cert without --tls-key',
      ['--insecure-no-auth', '--tls-cert', 'cert.pem'],
      /--tls-cert and --tls-key go together/,
    ],
  ])('refuses to start with %s (exit 1, one line)', async (_, args, message) => {
    const run = await runCli(['codec-server', '--listen', '127.0.0.1:0', ...args], {
      env: { ...process.env, ...KEYS },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('codec server started');
  });

  it('configured by DISPATCH_CODEC_* alone: HTTPS, 200 with the token, 401 without (logged), stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [join(REPO, 'bin/dispatch-kubeflow.js'), 'codec-server'], {
      cwd: REPO,
      env: {
        ...process.env,
        ...KEYS,
        DISPATCH_CODEC_LISTEN: '127.0.0.1:0',
        DISPATCH_CODEC_UI_ORIGIN: 'https://temporal.example.com, https://ui.example.com',
        DISPATCH_CODEC_TOKEN_FILE: join(cert.dir, 'tokens'),
        DISPATCH_CODEC_TLS_CERT: cert.certFile,
        DISPATCH_CODEC_TLS_KEY: cert.keyFile,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const started = await new Promise<Record<string, unknown>>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const line = stderr.split('\n').find((l) => l.includes('"codec server started"'));
          if (line) resolve(JSON.parse(line) as Record<string, unknown>);
        });
        void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      expect(started).toMatchObject({
        uiOrigins: ['https://temporal.example.com', 'https://ui.example.com'],
        callers: `static bearer tokens (1) from ${join(cert.dir, 'tokens')}`,
      });
      const url = started.url as string;
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(await post(url, { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' })).toBe(
        200,
      );
      expect(await post(url, { 'Content-Type': 'application/json' })).toBe(401);
      expect(
        await post(url, {
          Authorization: `Bearer ${TOKEN.slice(1)}x`,
          Origin: 'https://temporal.example.com',
        }),
      ).toBe(403);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const lines = stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(
      lines.filter((l) => l.message === 'codec server refused').map((l) => [l.status, l.reason]),
    ).toEqual([
      [401, 'no Authorization header'],
      [403, 'the token is not one of the static tokens'],
    ]);
    expect(lines.at(-1)).toMatchObject({ message: 'codec server stopped' });
    expect(stderr).not.toContain(TOKEN.slice(1));
  });
});
