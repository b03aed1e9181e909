// A token issuer for tests of the codec server's caller check: a key pair of its own, its public JWKS,
// and JWTs signed with jose as an OIDC provider signs the access tokens the Temporal UI passes on.
import { exportJWK, generateKeyPair, SignJWT, type JSONWebKeySet, type JWTPayload } from 'jose';

export const TEST_ISSUER = 'https://issuer.test.example';
export const TEST_AUDIENCE = 'temporal-ui';

export interface TokenIssuer {
  issuer: string;
  jwks: JSONWebKeySet;
  /** A JWT: issuer, audience, subject `operator@example.com`, valid for an hour, unless `claims` or `options` say otherwise. */
  sign(claims?: JWTPayload, options?: { expiresIn?: string | number; noExpiry?: boolean }): Promise<string>;
}

export async function tokenIssuer(
  alg: 'ES256' | 'RS256' = 'ES256',
  { issuer = TEST_ISSUER, kid = `${alg.toLowerCase()}-1` }: { issuer?: string; kid?: string } = {},
): Promise<TokenIssuer> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return {
    issuer,
    jwks: { keys: [jwk] },
    async sign(claims = {}, options = {}) {
      let jwt = new SignJWT({ sub: 'operator@example.com', ...claims })
        .setProtectedHeader({ alg, kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setAudience(TEST_AUDIENCE)
        .setIssuedAt();
      if (!options.noExpiry) jwt = jwt.setExpirationTime(options.expiresIn ?? '1h');
      if (claims.iss !== undefined) jwt = jwt.setIssuer(claims.iss);
      if (claims.aud !== undefined) jwt = jwt.setAudience(claims.aud);
      return jwt.sign(privateKey);
    },
  };
}
