// What a caller check answers, and the bearer token it checks: shared by the static-token and JWT
// checks (static-tokens.ts, jwt-check.ts) and assembled by caller-check.ts.
import type { NamespaceScope } from './namespace-scope.js';

export type CallerVerdict =
  | {
      ok: true;
      caller: string;
      /** The namespaces the token grants; undefined: no scope is configured (namespace-scope.ts). */
      scope?: NamespaceScope;
    }
  | { ok: false; status: 401 | 403 | 503; reason: string };

/** Checks the Authorization header of one call. */
export type CallerCheck = (authorization: string | undefined) => Promise<CallerVerdict>;

export class CallerCheckConfigError extends Error {}

/** A bearer token's characters (RFC 6750 b64token). */
export const TOKEN_CHARACTERS = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of a Bearer header, or the 401 verdict. */
export function bearerToken(authorization: string | undefined): string | CallerVerdict {
  if (authorization === undefined || authorization === '')
    return { ok: false, status: 401, reason: 'no Authorization header' };
  const token = BEARER.exec(authorization)?.[1];
  return token ?? { ok: false, status: 401, reason: 'the Authorization header is not a Bearer token' };
}
