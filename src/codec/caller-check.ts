// Who may call the codec server. It is the one endpoint that returns plaintext (a Start's env may hold
// secrets), so every /encode and /decode call carries `Authorization: Bearer <token>`, as the Temporal
// UI sends it with "pass access token" on (the signed-in user's OIDC access token) and the temporal
// CLI with `--codec-auth`. The token is checked one of two ways:
//
// - a JWT (jwt-check.ts): what the UI's users hold;
// - a static token from a file (static-tokens.ts): for the CLI and for a proxy that authenticates
//   users itself and sets the header.
//
// Either may also say which Temporal namespaces the caller may decode (namespace-scope.ts): a JWT
// claim named by --namespace-claim, or the namespaces written after a static token. The files
// behind both (token file, JWKS file) are read again when they change, so rotation needs no restart.
//
// No token is 401; a token that does not pass is 403; a JWKS or token file that cannot be used now
// is 503. The reason goes to the log, never the token; the caller learns only that its token is not
// accepted.
import { CallerCheckConfigError, type CallerCheck } from './caller-verdict.js';
import { discoverJwksUri, jwksKeys, jwtCheck } from './jwt-check.js';
import { tokenFileCheck, type StaticToken } from './static-tokens.js';

export { CallerCheckConfigError, type CallerCheck, type CallerVerdict } from './caller-verdict.js';
export { JWT_ALGORITHMS, JWT_CLOCK_TOLERANCE_S, discoverJwksUri, jwtCheck } from './jwt-check.js';
export { MIN_STATIC_TOKEN_LENGTH, staticTokenCheck, type StaticToken } from './static-tokens.js';

export interface CallerCheckOptions {
  /** A file of static bearer tokens, one a line, each optionally followed by its namespaces. */
  tokenFile?: string;
  /** The JWKS: an http(s) URL or a file; without it, the jwks_uri of the issuer's OpenID configuration. */
  jwks?: string;
  jwtIssuer?: string;
  jwtAudience?: string[];
  /** The JWT claim that lists the Temporal namespaces a token may decode; without it, JWTs are not scoped. */
  namespaceClaim?: string;
  /** Serve anyone: for a codec server only its own users can reach (a dev stack on loopback). */
  insecureNoAuth?: boolean;
}

/** A file the check read again, for one log line a rotation. */
export type OnReload = (file: string, what: string) => void;

const scopedTokens = (tokens: readonly StaticToken[]) =>
  tokens.some((t) => t.scope) ? ', each scoped to its namespaces' : '';

/** The check the options configure, and a line for the start-up log saying what it is. */
export async function callerCheckFrom(
  options: CallerCheckOptions,
  onReload: OnReload = () => {},
): Promise<{ check: CallerCheck; describe: string }> {
  const jwt =
    options.jwks !== undefined ||
    options.jwtIssuer !== undefined ||
    (options.jwtAudience ?? []).length > 0 ||
    options.namespaceClaim !== undefined;
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
      'give either a JWT check (--jwt-issuer, --jwt-audience, --jwks, --namespace-claim) or --token-file, not both' +
        ' (a static token is scoped by the namespaces written after it in the file)',
    );
  if (token) {
    const file = options.tokenFile!;
    const { check, tokens } = await tokenFileCheck(file, (now) =>
      onReload(file, `static bearer tokens (${now.length})${scopedTokens(now)}`),
    );
    return {
      check,
      describe: `static bearer tokens (${tokens.length}) from ${file}${scopedTokens(tokens)}`,
    };
  }
  if (jwt) {
    const { jwtIssuer: issuer, jwtAudience: audience = [], namespaceClaim } = options;
    if (!issuer)
      throw new CallerCheckConfigError('a JWT check needs --jwt-issuer (the iss its tokens carry)');
    if (audience.length === 0)
      throw new CallerCheckConfigError(
        "a JWT check needs --jwt-audience (the aud its tokens carry: the Temporal UI's client id)",
      );
    if (namespaceClaim !== undefined && namespaceClaim.trim() === '')
      throw new CallerCheckConfigError('--namespace-claim names no claim');
    const jwks = options.jwks ?? (await discoverJwksUri(issuer));
    const keys = await jwksKeys(jwks, () => onReload(jwks, 'JWKS'));
    const scoped = namespaceClaim === undefined ? '' : `, namespaces from claim ${namespaceClaim}`;
    return {
      check: jwtCheck(keys, issuer, audience, namespaceClaim),
      describe: `JWT of issuer ${issuer}, audience ${audience.join(', ')}, keys from ${jwks}${scoped}`,
    };
  }
  throw new CallerCheckConfigError(
    'the codec server returns plaintext to whoever calls it, so it needs a caller check: --jwt-issuer and --jwt-audience ' +
      "(JWTs, as the Temporal UI passes its users' access tokens), or --token-file (static bearer tokens); " +
      '--insecure-no-auth serves anyone, for a server only its own users can reach',
  );
}
