// The codec server's caller check: JWTs verified with jose against a JWKS (a file, a URL, or the
// issuer's OpenID configuration), static tokens from a file, and every configuration refused that
// would leave the codec server open by mistake.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import {
  callerCheckFrom,
  CallerCheckConfigError,
  type CallerCheck,
  type CallerCheckOptions,
} from '../../../src/codec/caller-check.js';
import { TEST_AUDIENCE, tokenIssuer, type TokenIssuer } from '../../support/token-issuer.js';

let dir: string;
let es: TokenIssuer;
let rs: TokenIssuer;
/** A key pair of its own that claims the same issuer and key id as `es`: a forger's. */
let forger: TokenIssuer;
let jwksFile: string;
/** Serves `documents` by path; counts requests. */
let http: Server;
let base: string;
const documents = new Map<string, unknown>();

const STATIC = ['t0k3n-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'n3xt-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caller-check-'));
  [es, rs, forger] = await Promise.all([tokenIssuer('ES256'), tokenIssuer('RS256'), tokenIssuer('ES256')]);
  jwksFile = join(dir, 'jwks.json');
  await writeFile(jwksFile, JSON.stringify({ keys: [...es.jwks.keys, ...rs.jwks.keys] }));
  await writeFile(join(dir, 'tokens'), `${STATIC[0]}\n\n  ${STATIC[1]}  \n`);
  http = createServer((request, response) => {
    const document = documents.get(request.url ?? '');
    if (document === undefined) return response.writeHead(404).end();
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  documents.set('/jwks', { keys: [...es.jwks.keys, ...rs.jwks.keys] });
  documents.set('/idp/.well-known/openid-configuration', { issuer: `${base}/idp`, jwks_uri: `${base}/jwks` });
});
afterAll(async () => {
  http?.close();
  await rm(dir, { recursive: true, force: true });
});

const bearer = (token: string) => `Bearer ${token}`;
const jwtOptions = (jwks?: string): CallerCheckOptions => ({
  jwtIssuer: es.issuer,
  jwtAudience: ['other-client', TEST_AUDIENCE],
  ...(jwks ? { jwks } : {}),
});

describe('JWT caller check', () => {
  let check: CallerCheck;
  beforeAll(async () => {
    ({ check } = await callerCheckFrom(jwtOptions(jwksFile)));
  });

  it('accepts a token of the issuer for the audience, ES256 or RS256; the caller is its subject', async () => {
    await expect(check(bearer(await es.sign()))).resolves.toEqual({
      ok: true,
      caller: 'operator@example.com',
    });
    await expect(check(`bearer  ${await rs.sign({ sub: 'ci-bot' })}`)).resolves.toEqual({
      ok: true,
      caller: 'ci-bot',
    });
  });

  it.each([
    ['no header', undefined, /no Authorization header/],
    ['an empty header', '', /no Authorization header/],
    ['another scheme', 'Basic dXNlcjpwYXNz', /not a Bearer token/],
    ['Bearer and nothing', 'Bearer ', /not a Bearer token/],
  ])('%s: 401', async (_, header, reason) => {
    const verdict = await check(header);
    expect(verdict).toMatchObject({ ok: false, status: 401 });
    expect(!verdict.ok && verdict.reason).toMatch(reason);
  });

  const refused: [string, () => Promise<string>, RegExp][] = [
    ['expired', () => es.sign({}, { expiresIn: Math.floor(Date.now() / 1000) - 120 }), /expired/],
    ['signed by another key under the same kid', () => forger.sign(), /signature does not verify/],
    ['of another issuer', () => es.sign({ iss: 'https://elsewhere.example' }), /claim iss/],
    ['for another audience', () => es.sign({ aud: 'grafana' }), /claim aud/],
    ['without an expiry', () => es.sign({}, { noExpiry: true }), /claim exp/],
    ['not yet valid', () => es.sign({ nbf: Math.floor(Date.now() / 1000) + 3600 }), /claim nbf/],
    ['not a JWT', async () => 'undefined', /not a valid JWT/],
    [
      'signed with HS256 (a symmetric algorithm)',
      () =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'HS256', kid: 'es256-1' })
          .setIssuer(es.issuer)
          .setAudience(TEST_AUDIENCE)
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode('a-shared-secret-of-thirty-two-bytes!')),
      /algorithm not allowed/,
    ],
  ];
  it.each(refused)('a token %s: 403, with the reason', async (_, token, reason) => {
    const verdict = await check(bearer(await token()));
    expect(verdict).toMatchObject({ ok: false, status: 403 });
    expect(!verdict.ok && verdict.reason).toMatch(reason);
  });

  it('a token just expired within the clock tolerance (30 s) still passes', async () => {
    const token = await es.sign({}, { expiresIn: Math.floor(Date.now() / 1000) - 10 });
    await expect(check(bearer(token))).resolves.toMatchObject({ ok: true });
  });

  it("keys from a JWKS URL, and from the jwks_uri of the issuer's OpenID configuration", async () => {
    const fromUrl = await callerCheckFrom(jwtOptions(`${base}/jwks`));
    await expect(fromUrl.check(bearer(await rs.sign()))).resolves.toMatchObject({ ok: true });
    await expect(fromUrl.check(bearer(await forger.sign()))).resolves.toMatchObject({
      ok: false,
      status: 403,
    });

    const idp = await tokenIssuer('ES256', { issuer: `${base}/idp` });
    documents.set('/jwks', idp.jwks);
    try {
      const discovered = await callerCheckFrom({ jwtIssuer: idp.issuer, jwtAudience: [TEST_AUDIENCE] });
      expect(discovered.describe).toContain(`keys from ${base}/jwks`);
      await expect(discovered.check(bearer(await idp.sign()))).resolves.toMatchObject({ ok: true });
      await expect(discovered.check(bearer(await es.sign()))).resolves.toMatchObject({
        ok: false,
        status: 403,
      });
    } finally {
      documents.set('/jwks', { keys: [...es.jwks.keys, ...rs.jwks.keys] });
    }
  });

  it('a JWKS URL that does not answer: 503 (nothing is decoded, and the token is not blamed)', async () => {
    const { check: unreachable } = await callerCheckFrom(jwtOptions(`${base}/no-such-jwks`));
    const verdict = await unreachable(bearer(await es.sign()));
    expect(verdict).toMatchObject({ ok: false, status: 503 });
    expect(!verdict.ok && verdict.reason).toMatch(/cannot verify tokens/);
  });
});

describe('static token caller check', () => {
  it('accepts each token of the file (one a line; blank lines and spaces around are ignored)', async () => {
    const { check, describe: said } = await callerCheckFrom({ tokenFile: join(dir, 'tokens') });
    expect(said).toMatch(/static bearer tokens \(2\)/);
    await expect(check(bearer(STATIC[0]!))).resolves.toEqual({ ok: true, caller: 'static token 1' });
    await expect(check(bearer(STATIC[1]!))).resolves.toEqual({ ok: true, caller: 'static token 2' });
  });

  it.each([
    ['another token', 'x'.repeat(40)],
    ['a prefix of a token', STATIC[0]!.slice(0, -1)],
    ['a token with one more character', `${STATIC[0]!}a`],
    ['both tokens at once', `${STATIC[0]!}${STATIC[1]!}`],
  ])('%s: 403', async (_, token) => {
    const { check } = await callerCheckFrom({ tokenFile: join(dir, 'tokens') });
    await expect(check(bearer(token))).resolves.toMatchObject({ ok: false, status: 403 });
  });

  it('no token: 401', async () => {
    const { check } = await callerCheckFrom({ tokenFile: join(dir, 'tokens') });
    await expect(check(undefined)).resolves.toMatchObject({ ok: false, status: 401 });
  });
});

describe('configurations refused at start', () => {
  const file = (name: string, text: string) => writeFile(join(dir, name), text).then(() => join(dir, name));

  it.each<[string, () => Promise<CallerCheckOptions>, RegExp]>([
    ['nothing configured', async () => ({}), /needs a caller check.*--insecure-no-auth serves anyone/],
    ['--insecure-no-auth with a token file', async () => ({ insecureNoAuth: true, tokenFile: 'x' }), /alone/],
    ['a JWT check and a token file', async () => ({ ...jwtOptions(jwksFile), tokenFile: 'x' }), /not both/],
    [
      'a JWT check without an issuer',
      async () => ({ jwks: jwksFile, jwtAudience: ['a'] }),
      /needs --jwt-issuer/,
    ],
    [
      'a JWT check without an audience',
      async () => ({ jwks: jwksFile, jwtIssuer: es.issuer }),
      /needs --jwt-audience/,
    ],
    [
      'a JWKS file that is not a JWKS',
      async () => jwtOptions(await file('not-jwks.json', '{"keys": []}')),
      /at least one key/,
    ],
    [
      'an issuer whose discovery document is missing',
      async () => ({ jwtIssuer: `${base}/nowhere`, jwtAudience: ['a'] }),
      /answered 404; give --jwks/,
    ],
    [
      'a token file that is missing',
      async () => ({ tokenFile: join(dir, 'missing') }),
      /--token-file .*missing: ENOENT/,
    ],
    ['an empty token file', async () => ({ tokenFile: await file('empty', '\n\n') }), /holds no token/],
    [
      'a short token',
      async () => ({ tokenFile: await file('short', 'secret\n') }),
      /line 1 is 6 characters; at least 32/,
    ],
    [
      'a token with a character no bearer token has',
      async () => ({ tokenFile: await file('quoted', `${'a'.repeat(20)}"${'b'.repeat(20)}\n`) }),
      /not a bearer token/,
    ],
  ])('%s', async (_, options, message) => {
    const error = await callerCheckFrom(await options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallerCheckConfigError);
    expect((error as Error).message).toMatch(message);
  });

  it('--insecure-no-auth alone serves anyone, and says so', async () => {
    const { check, describe: said } = await callerCheckFrom({ insecureNoAuth: true });
    expect(said).toMatch(/--insecure-no-auth/);
    await expect(check(undefined)).resolves.toMatchObject({ ok: true });
  });
});
