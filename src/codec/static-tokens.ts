// Static bearer tokens from a file (a mounted Secret), for the temporal CLI and for a proxy that
// authenticates users itself. One token a line, so that a new one can be added before the old one is
// removed; after a token, optionally, the Temporal namespaces it may decode (`<token> ns-a,ns-b`, `*`
// for every one). A file that scopes one token must scope every token: a token left unscoped by
// mistake would otherwise decode every namespace.
//
// The file is read again when it changes (reloading-files.ts), so adding or revoking a token needs no
// restart. A file that can no longer be read or parsed refuses every call (503) until it is fixed:
// a token the operator meant to revoke must never pass because its replacement file has a typo.
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  CallerCheckConfigError,
  TOKEN_CHARACTERS,
  bearerToken,
  type CallerCheck,
  type CallerVerdict,
} from './caller-verdict.js';
import { scopeOf, type NamespaceScope } from './namespace-scope.js';
import { ReloadingFiles } from './reloading-files.js';

/** A static token shorter than this is refused: it could be guessed. */
export const MIN_STATIC_TOKEN_LENGTH = 32;

export interface StaticToken {
  token: string;
  /** The namespaces it may decode; undefined: the file scopes no token. */
  scope?: NamespaceScope;
}

/** The tokens of a token file's text; every problem is a CallerCheckConfigError naming the file and line. */
export function parseStaticTokens(text: string, file: string): StaticToken[] {
  const where = (i: number) => `--token-file ${file}: line ${i + 1}`;
  const lines = text
    .split(/\r?\n/)
    .map((line, i) => ({ line: line.trim(), i }))
    .filter(({ line }) => line !== '');
  if (lines.length === 0) throw new CallerCheckConfigError(`--token-file ${file}: holds no token`);
  const tokens = lines.map(({ line, i }) => {
    const [token = '', ...names] = line.split(/[\s,]+/);
    if (!TOKEN_CHARACTERS.test(token))
      throw new CallerCheckConfigError(
        `${where(i)} is not a bearer token (letters, digits, -._~+/ and a = padding), optionally followed by namespaces`,
      );
    if (token.length < MIN_STATIC_TOKEN_LENGTH)
      throw new CallerCheckConfigError(
        `${where(i)} is ${token.length} characters; at least ${MIN_STATIC_TOKEN_LENGTH} are needed (e.g. openssl rand -base64 32)`,
      );
    return { i, token, names };
  });
  const scoped = tokens.find(({ names }) => names.length > 0);
  if (!scoped) return tokens.map(({ token }) => ({ token }));
  const unscoped = tokens.find(({ names }) => names.length === 0);
  if (unscoped)
    throw new CallerCheckConfigError(
      `${where(unscoped.i)} names no namespace, but line ${scoped.i + 1} does: once one token is scoped, every token must name its namespaces (* for every one)`,
    );
  return tokens.map(({ token, names }) => ({ token, scope: scopeOf(names) }));
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Static tokens, compared in constant time (over their SHA-256, so that lengths leak nothing either). */
export function staticTokenCheck(tokens: readonly StaticToken[]): CallerCheck {
  const digests = tokens.map(({ token }) => digest(token));
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (typeof token !== 'string') return token;
    const presented = digest(token);
    let match = -1;
    digests.forEach((d, i) => {
      if (timingSafeEqual(d, presented) && match < 0) match = i;
    });
    if (match < 0) return { ok: false, status: 403, reason: 'the token is not one of the static tokens' };
    const { scope } = tokens[match]!;
    return { ok: true, caller: `static token ${match + 1}`, ...(scope ? { scope } : {}) };
  };
}

/**
 * The check of a token file, read now (a problem is a CallerCheckConfigError, so that the server
 * does not start) and again whenever it changes; `onReload` hears of each new version.
 */
export async function tokenFileCheck(
  file: string,
  onReload: (tokens: readonly StaticToken[]) => void = () => {},
): Promise<{ check: CallerCheck; tokens: readonly StaticToken[] }> {
  const files = new ReloadingFiles(
    [file],
    ([text]) => {
      const tokens = parseStaticTokens(text!.toString('utf8'), file);
      return { tokens, check: staticTokenCheck(tokens) };
    },
    ({ tokens }) => onReload(tokens),
  );
  const first = await files.current().catch((error: Error) => {
    throw error instanceof CallerCheckConfigError
      ? error
      : new CallerCheckConfigError(`--token-file ${file}: ${error.message}`);
  });
  const check: CallerCheck = async (authorization) => {
    const current = await files.current().catch((error: Error) => error);
    if (current instanceof Error)
      return {
        ok: false,
        status: 503,
        reason: `the token file cannot be used, so no token is accepted: ${current.message}`,
      } satisfies CallerVerdict;
    return current.check(authorization);
  };
  return { check, tokens: first.tokens };
}
