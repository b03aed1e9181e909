// JWTs, verified with jose against a JWKS (a URL, a file, or the one the issuer's OpenID
// configuration names) for their signature (asymmetric algorithms only), issuer, audience and
// expiry: what the Temporal UI's users hold. With a namespace claim configured, the claim's value is
// the namespaces the token may decode (namespace-scope.ts).
//
// Rotation: a JWKS file is read again when it changes (reloading-files.ts); a JWKS URL is fetched
// again by jose when a token names a key id it does not hold (at most once in 30 s) and at the
// latest every 10 minutes, so an identity provider's new key is picked up without a restart.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';
import { CallerCheckConfigError, bearerToken, type CallerCheck } from './caller-verdict.js';
import { scopeFromClaim } from './namespace-scope.js';
import { ReloadingFiles } from './reloading-files.js';

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

/**
 * JWTs signed by a key of `keys`, for `issuer` and one of `audience`; with `namespaceClaim`, the
 * verdict carries the scope that claim grants (none when the token lacks it).
 */
export function jwtCheck(
  keys: JWTVerifyGetKey,
  issuer: string,
  audience: string[],
  namespaceClaim?: string,
): CallerCheck {
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
      const caller = typeof payload.sub === 'string' ? payload.sub : `a token of ${issuer}`;
      if (namespaceClaim === undefined) return { ok: true, caller };
      return { ok: true, caller, scope: scopeFromClaim(payload[namespaceClaim]) };
    } catch (error) {
      const reason = refusalReason(error);
      return reason
        ? { ok: false, status: 403, reason }
        : { ok: false, status: 503, reason: `cannot verify tokens: ${(error as Error).message}` };
    }
  };
}

const isUrl = (value: string) => /^https?:\/\//i.test(value);

function parseJwks(text: string, file: string): JSONWebKeySet {
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

/**
 * The keys of a JWKS file, read now (a problem is a CallerCheckConfigError) and again whenever it
 * changes. A file that cannot be used later fails verification (503): no token passes against keys
 * the operator is replacing.
 */
export async function jwksFileKeys(file: string, onReload: () => void = () => {}): Promise<JWTVerifyGetKey> {
  const files = new ReloadingFiles(
    [file],
    ([text]) => createLocalJWKSet(parseJwks(text!.toString('utf8'), file)),
    onReload,
  );
  await files.current().catch((error: Error) => {
    throw error instanceof CallerCheckConfigError
      ? error
      : new CallerCheckConfigError(`--jwks ${file}: ${error.message}`);
  });
  return async (header, token) => (await files.current())(header, token);
}

/** The keys of a JWKS URL or file. */
export const jwksKeys = (jwks: string, onReload?: () => void): Promise<JWTVerifyGetKey> =>
  isUrl(jwks) ? Promise.resolve(createRemoteJWKSet(new URL(jwks))) : jwksFileKeys(jwks, onReload);

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
