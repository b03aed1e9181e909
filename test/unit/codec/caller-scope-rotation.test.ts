// The caller check's namespace scope (a static token's namespaces in the token file, a JWT's claim
// named by --namespace-claim) and its rotation: the token file and the JWKS file are read again when
// they change, so the next call is checked against the new file, with no restart.
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerCheckFrom, CallerCheckConfigError } from '../../../src/codec/caller-check.js';
import { parseStaticTokens } from '../../../src/codec/static-tokens.js';
import { tokenIssuer, TEST_AUDIENCE, type TokenIssuer } from '../../support/token-issuer.js';

const A = 'alpha-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bravo-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const C = 'charlie-ccccccccccccccccccccccccccccccccc';
const bearer = (token: string) => `Bearer ${token}`;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caller-scope-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `text` as Kubernetes updates a Secret's file: a new file renamed over the old. */
async function replace(file: string, text: string) {
  await writeFile(`${file}.new`, text);
  await rename(`${file}.new`, file);
}

describe('static tokens scoped by namespace', () => {
  it('each token decodes the namespaces written after it; * is every namespace', () => {
    const tokens = parseStaticTokens(`${A} ml-a\n${B} ml-a,ml-b  ml-c\n\n${C} *\n`, 'tokens');
    expect(tokens).toEqual([
      { token: A, scope: { every: false, namespaces: new Set(['ml-a']) } },
      { token: B, scope: { every: false, namespaces: new Set(['ml-a', 'ml-b', 'ml-c']) } },
      { token: C, scope: { every: true } },
    ]);
  });

  it('a file with no namespaces scopes nothing (as before)', () => {
    expect(parseStaticTokens(`${A}\n${B}\n`, 'tokens')).toEqual([{ token: A }, { token: B }]);
  });

  it('a file that scopes one token and not another is refused, naming the unscoped line', () => {
    expect(() => parseStaticTokens(`${A} ml-a\n${B}\n`, 'tokens')).toThrow(
      /--token-file tokens: line 2 names no namespace, but line 1 does: .*\* for every one/,
    );
  });

  it('the verdict of a scoped token carries its scope', async () => {
    const file = join(dir, 'scoped');
    await writeFile(file, `${A} ml-a\n${B} *\n`);
    const { check, describe: said } = await callerCheckFrom({ tokenFile: file });
    expect(said).toBe(`static bearer tokens (2) from ${file}, each scoped to its namespaces`);
    await expect(check(bearer(A))).resolves.toEqual({
      ok: true,
      caller: 'static token 1',
      scope: { every: false, namespaces: new Set(['ml-a']) },
    });
    await expect(check(bearer(B))).resolves.toEqual({
      ok: true,
      caller: 'static token 2',
      scope: { every: true },
    });
  });
});

describe('token file rotation', () => {
  it('the next call after the file changes is checked against the new file: a token added passes, one removed does not', async () => {
    const file = join(dir, 'rotated');
    await writeFile(file, `${A}\n`);
    const reloads: string[] = [];
    const { check } = await callerCheckFrom({ tokenFile: file }, (f, what) => reloads.push(`${f}: ${what}`));
    await expect(check(bearer(A))).resolves.toMatchObject({ ok: true });
    await expect(check(bearer(B))).resolves.toMatchObject({ ok: false, status: 403 });

    await replace(file, `${A}\n${B}\n`);
    await expect(check(bearer(B))).resolves.toEqual({ ok: true, caller: 'static token 2' });
    await replace(file, `${B} ml-b\n`);
    await expect(check(bearer(A))).resolves.toMatchObject({ ok: false, status: 403 });
    await expect(check(bearer(B))).resolves.toMatchObject({ ok: true, scope: { every: false } });
    // Written in place (same inode) rather than renamed: seen too.
    await writeFile(file, `${C} *\n`);
    await expect(check(bearer(B))).resolves.toMatchObject({ ok: false, status: 403 });
    await expect(check(bearer(C))).resolves.toMatchObject({ ok: true, scope: { every: true } });
    expect(reloads).toEqual([
      `${file}: static bearer tokens (2)`,
      `${file}: static bearer tokens (1), each scoped to its namespaces`,
      `${file}: static bearer tokens (1), each scoped to its namespaces`,
    ]);
  });

  it('a file that can no longer be used refuses every token (503) until it is fixed; the start refuses it outright', async () => {
    const file = join(dir, 'broken');
    await writeFile(file, `${A}\n`);
    const { check } = await callerCheckFrom({ tokenFile: file });
    await replace(file, 'short\n');
    const verdict = await check(bearer(A));
    expect(verdict).toMatchObject({ ok: false, status: 503 });
    expect(!verdict.ok && verdict.reason).toMatch(
      /the token file cannot be used, so no token is accepted: .*line 1 is 5 characters/,
    );
    await rm(file);
    await expect(check(bearer(A))).resolves.toMatchObject({ ok: false, status: 503 });
    await writeFile(file, `${A}\n`);
    await expect(check(bearer(A))).resolves.toMatchObject({ ok: true });

    await writeFile(file, 'short\n');
    await expect(callerCheckFrom({ tokenFile: file })).rejects.toBeInstanceOf(CallerCheckConfigError);
  });
});

describe('JWTs scoped by a claim, and JWKS file rotation', () => {
  let one: TokenIssuer;
  let two: TokenIssuer;
  beforeAll(async () => {
    [one, two] = await Promise.all([
      tokenIssuer('ES256', { kid: 'one' }),
      tokenIssuer('ES256', { kid: 'two' }),
    ]);
  });
  const options = (jwks: string, namespaceClaim?: string) => ({
    jwtIssuer: one.issuer,
    jwtAudience: [TEST_AUDIENCE],
    jwks,
    ...(namespaceClaim ? { namespaceClaim } : {}),
  });

  it('with --namespace-claim the verdict carries the namespaces the claim lists (none when the token lacks it); without, no scope', async () => {
    const jwks = join(dir, 'jwks-claim.json');
    await writeFile(jwks, JSON.stringify(one.jwks));
    const scoped = await callerCheckFrom(options(jwks, 'temporal_namespaces'));
    expect(scoped.describe).toMatch(/, namespaces from claim temporal_namespaces$/);
    await expect(
      scoped.check(bearer(await one.sign({ temporal_namespaces: ['ml-a', 'ml-b'] }))),
    ).resolves.toEqual({
      ok: true,
      caller: 'operator@example.com',
      scope: { every: false, namespaces: new Set(['ml-a', 'ml-b']) },
    });
    await expect(
      scoped.check(bearer(await one.sign({ temporal_namespaces: 'ml-a *' }))),
    ).resolves.toMatchObject({
      scope: { every: true },
    });
    await expect(scoped.check(bearer(await one.sign()))).resolves.toMatchObject({
      ok: true,
      scope: { every: false, namespaces: new Set() },
    });
    const plain = await callerCheckFrom(options(jwks));
    await expect(plain.check(bearer(await one.sign({ temporal_namespaces: ['ml-a'] })))).resolves.toEqual({
      ok: true,
      caller: 'operator@example.com',
    });
  });

  it('--namespace-claim with --token-file is refused at start (a static token is scoped in its file)', async () => {
    await expect(callerCheckFrom({ tokenFile: 'x', namespaceClaim: 'ns' })).rejects.toThrow(/not both/);
  });

  it("a JWKS file's new key is used by the next call after the file changes, and a key removed no longer verifies", async () => {
    const jwks = join(dir, 'jwks-rotated.json');
    await writeFile(jwks, JSON.stringify(one.jwks));
    const reloads: string[] = [];
    const { check } = await callerCheckFrom(options(jwks), (file, what) => reloads.push(`${file}: ${what}`));
    const byTwo = await two.sign({ iss: one.issuer });
    await expect(check(bearer(byTwo))).resolves.toMatchObject({ ok: false, status: 403 });

    await replace(jwks, JSON.stringify({ keys: [...one.jwks.keys, ...two.jwks.keys] }));
    await expect(check(bearer(byTwo))).resolves.toMatchObject({ ok: true });
    await replace(jwks, JSON.stringify(two.jwks));
    await expect(check(bearer(await one.sign()))).resolves.toMatchObject({ ok: false, status: 403 });
    await expect(check(bearer(byTwo))).resolves.toMatchObject({ ok: true });
    expect(reloads).toEqual([`${jwks}: JWKS`, `${jwks}: JWKS`]);

    await replace(jwks, '{"keys": []}');
    const verdict = await check(bearer(byTwo));
    expect(verdict).toMatchObject({ ok: false, status: 503 });
    expect(!verdict.ok && verdict.reason).toMatch(/cannot verify tokens: .*at least one key/);
  });
});
