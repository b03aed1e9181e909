// The identities of a local cluster: static bearer tokens for an admin in system:masters and for a
// restricted user (RBAC tests), and the RSA key pair that signs service-account tokens.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const Identities = {
  admin: { user: 'dispatch-admin', groups: ['system:masters'] },
  /**
   * May read Trainer runtimes and TrainJobs cluster-wide and nothing else (beyond what every
   * authenticated user may do: discovery, SelfSubjectAccessReview). Tests grant more per namespace.
   */
  restricted: { user: 'dispatch-restricted', groups: [] as string[] },
} as const;

export interface ClusterCredentials {
  adminToken: string;
  restrictedToken: string;
  /** --token-auth-file */
  tokenFile: string;
  /** --service-account-signing-key-file */
  serviceAccountKeyFile: string;
  /** --service-account-key-file */
  serviceAccountPublicKeyFile: string;
}

const token = () => randomBytes(24).toString('hex');

/** Writes fresh tokens and a service-account key pair into `dir`. */
export function writeCredentials(dir: string): ClusterCredentials {
  const adminToken = token();
  const restrictedToken = token();
  // token,user,uid,"group1,group2"
  const line = (tok: string, id: { user: string; groups: readonly string[] }) =>
    `${tok},${id.user},${id.user},"${id.groups.join(',')}"`;
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${line(adminToken, Identities.admin)}\n${line(restrictedToken, Identities.restricted)}\n`, {
    mode: 0o600,
  });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const serviceAccountKeyFile = join(dir, 'sa.key');
  const serviceAccountPublicKeyFile = join(dir, 'sa.pub');
  writeFileSync(serviceAccountKeyFile, privateKey, { mode: 0o600 });
  writeFileSync(serviceAccountPublicKeyFile, publicKey);
  return { adminToken, restrictedToken, tokenFile, serviceAccountKeyFile, serviceAccountPublicKeyFile };
}
