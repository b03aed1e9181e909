// Who may call the codec server. It is the one endpoint that returns plaintext (a Start's env may hold
// secrets), so every /encode and /decode call carries `Authorization: Bearer <token>`, as the Temporal
// UI sends it with "pass access token" on (the signed-in user's OIDC access token) and the temporal
// CLI with `--codec-auth`. The token is checked one of two ways:
//
// - a JWT, verified with jose against a JWKS (a URL, a file, or the one the issuer's OpenID
//   configuration names) for its signature (asymmetric algorithms only), issuer, audience and
//   expiry: what the UI's users hold;
// - a static token from a file (a mounted Secret; one token a line, so that a new one can be added
//   before the old one is removed), compared in constant time: for the CLI and for a proxy that
//   authenticates users itself and sets the header.
//
// No token is 401; a token that does not pass is 403; a JWKS that cannot be fetched is 503. The
// reason goes to the log, never the token; the caller learns only that its token is not accepted.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';

export type CallerVerdict =
  { ok: true; caller: string } | { ok: false; status: 401 | 403 | 503; reason: string };

/** Checks the Authorization header of one call. */
export type CallerCheck = (authorization: string | undefined) => Promise<CallerVerdict>;

export interface CallerCheckOptions {
  /** A file of static bearer tokens, one a line. */
  tokenFile?: string;
  /** The JWKS: an http(s) URL or a file; without it, the jwks_uri of the issuer's OpenID configuration. */
  jwks?: string;
  jwtIssuer?: string;
  jwtAudience?: string[];
  /** Serve anyone: for a codec server only its own users can reach (a dev stack on loopback). */
  insecureNoAuth?: boolean;
}

/** The JWT signature algorithms accepted: asymmetric only, so that the JWKS holds no secret. */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'EdDSA',
];
/** Clock skew allowed on exp and nbf. */
export const JWT_CLOCK_TOLERANCE_S = 30;
/** A static token shorter than this is refused at start: it could be guessed. */
export const MIN_STATIC_TOKEN_LENGTH = 32;

export class CallerCheckConfigError extends Error {}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of a Bearer header, or the 401 verdict. */
function bearerToken(authorization: string | undefined): string | CallerVerdict {
  if (authorization === undefined || authorization === '')
    return { ok: false, status: 401, reason: 'no Authorization header' };
  const token = BEARER.exec(authorization)?.[1];
  return token ?? { ok: false, status: 401, reason: 'the Authorization header is not a Bearer token' };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Static tokens, compared in constant time (over their SHA-256, so that lengths leak nothing either). */
export function staticTokenCheck(tokens: string[]): CallerCheck {
  const digests = tokens.map(digest);
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (typeof token !== 'string') return token;
    const presented = digest(token);
    let match = -1;
    digests.forEach((d, i) => {
      if (timingSafeEqual(d, presented) && match < 0) match = i;
    });
    return match >= 0
      ? { ok: true, caller: `static token ${match + 1}` }
      : { ok: false, status: 403, reason: 'the token is not one of the static tokens' };
  };
}

/** Why jose refused a token, in words for the log; undefined: not a refusal of the token (the JWKS failed). */
function refusalReason(error: unknown): string | undefined {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `claim ${error.claim}: ${error.message}`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the signature does not verify';
  if (error instanceof errors.JWKSNoMatchingKey) return 'no key of the JWKS matches the token';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token is signed with an algorithm not allowed';
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return 'the token is not a valid JWT';
  if (error instanceof errors.JOSENotSupported)
    return `the token uses what is not supported: ${error.message}`;
  return undefined;
}

/** JWTs signed by a key of `keys`, for `issuer` and one of `audience`. */
export function jwtCheck(keys: JWTVerifyGetKey, issuer: string, audience: string[]): CallerCheck {
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (typeof token !== 'string') return token;
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms: JWT_ALGORITHMS,
        clockTolerance: JWT_CLOCK_TOLERANCE_S,
        requiredClaims: ['exp'],
      });
      return { ok: true, caller: typeof payload.sub === 'string' ? payload.sub : `a token of ${issuer}` };
    } catch (error) {
      const reason = refusalReason(error);
      return reason
        ? { ok: false, status: 403, reason }
        : { ok: false, status: 503, reason: `cannot verify tokens: ${(error as Error).message}` };
    }
  };
}

const isUrl = (value: string) => /^https?:\/\//i.test(value);

async function readJwksFile(file: string): Promise<JSONWebKeySet> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new CallerCheckConfigError(`--jwks ${file}: ${error.message}`);
  });
  let jwks: unknown;
  try {
    jwks = JSON.parse(text);
  } catch {
    throw new CallerCheckConfigError(`--jwks ${file}: not JSON`);
  }
  if (!Array.isArray((jwks as JSONWebKeySet | null)?.keys) || (jwks as JSONWebKeySet).keys.length === 0)
    throw new CallerCheckConfigError(
      `--jwks ${file}: must be a JWKS, {"keys": [...]}, with at least one key`,
    );
  return jwks as JSONWebKeySet;
}

/** The jwks_uri of the issuer's OpenID configuration (OpenID Connect Discovery 1.0, §4). */
export async function discoverJwksUri(issuer: string): Promise<string> {
  const where = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(where, { signal: AbortSignal.timeout(10_000) }).catch((error: Error) => {
    throw new CallerCheckConfigError(`--jwt-issuer ${issuer}: cannot read ${where}: ${error.message}`);
  });
  if (!response.ok)
    throw new CallerCheckConfigError(
      `--jwt-issuer ${issuer}: ${where} answered ${response.status}; give --jwks`,
    );
  const document = (await response.json().catch(() => null)) as {
    jwks_uri?: unknown;
    issuer?: unknown;
  } | null;
  if (typeof document?.jwks_uri !== 'string')
    throw new CallerCheckConfigError(`--jwt-issuer ${issuer}: ${where} names no jwks_uri; give --jwks`);
  if (document.issuer !== issuer)
    throw new CallerCheckConfigError(
      `--jwt-issuer ${issuer}: ${where} is for issuer ${String(document.issuer)}; --jwt-issuer must be that exactly`,
    );
  return document.jwks_uri;
}

async function readStaticTokens(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new CallerCheckConfigError(`--token-file ${file}: ${error.message}`);
  });
  const tokens = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (tokens.length === 0) throw new CallerCheckConfigError(`--token-file ${file}: holds no token`);
  tokens.forEach((token, i) => {
    if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token))
      throw new CallerCheckConfigError(
        `--token-file ${file}: line ${i + 1} is not a bearer token (letters, digits, -._~+/ and a = padding)`,
      );
    if (token.length < MIN_STATIC_TOKEN_LENGTH)
      throw new CallerCheckConfigError(
        `--token-file ${file}: line ${i + 1} is ${token.length} characters; at least ${MIN_STATIC_TOKEN_LENGTH} are needed (e.g. openssl rand -base64 32)`,
      );
  });
  return tokens;
}

/** The check the options configure, and a line for the start-up log saying what it is. */
export async function callerCheckFrom(
  options: CallerCheckOptions,
): Promise<{ check: CallerCheck; describe: string }> {
  const jwt =
    options.jwks !== undefined || options.jwtIssuer !== undefined || (options.jwtAudience ?? []).length > 0;
  const token = options.tokenFile !== undefined;
  if (options.insecureNoAuth) {
    if (jwt || token)
      throw new CallerCheckConfigError('--insecure-no-auth turns checking off: give it alone, or drop it');
    return {
      check: async () => ({ ok: true, caller: 'anyone (--insecure-no-auth)' }),
      describe: 'none: --insecure-no-auth',
    };
  }
  if (jwt && token)
    throw new CallerCheckConfigError(
      'give either a JWT check (--jwt-issuer, --jwt-audience, --jwks) or --token-file, not both',
    );
  if (token) {
    const tokens = await readStaticTokens(options.tokenFile!);
    return {
      check: staticTokenCheck(tokens),
      describe: `static bearer tokens (${tokens.length}) from ${options.tokenFile}`,
    };
  }
  if (jwt) {
    const { jwtIssuer: issuer, jwtAudience: audience = [] } = options;
    if (!issuer)
      throw new CallerCheckConfigError('a JWT check needs --jwt-issuer (the iss its tokens carry)');
    if (audience.length === 0)
      throw new CallerCheckConfigError(
        "a JWT check needs --jwt-audience (the aud its tokens carry: the Temporal UI's client id)",
      );
    const jwks = options.jwks ?? (await discoverJwksUri(issuer));
    const keys = isUrl(jwks)
      ? createRemoteJWKSet(new URL(jwks))
      : createLocalJWKSet(await readJwksFile(jwks));
    return {
      check: jwtCheck(keys, issuer, audience),
      describe: `JWT of issuer ${issuer}, audience ${audience.join(', ')}, keys from ${jwks}`,
    };
  }
  throw new CallerCheckConfigError(
    'the codec server returns plaintext to whoever calls it, so it needs a caller check: --jwt-issuer and --jwt-audience ' +
      "(JWTs, as the Temporal UI passes its users' access tokens), or --token-file (static bearer tokens); " +
      '--insecure-no-auth serves anyone, for a server only its own users can reach',
  );
}
