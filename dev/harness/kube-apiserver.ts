// kube-apiserver on loopback: static-token authentication, RBAC, service-account signing, a
// self-signed serving certificate; everything a cluster without nodes does not need is off.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClusterCredentials } from './credentials.js';
import type { LaunchOptions } from './etcd.js';
import { kubeRequest } from './kube-access.js';
import { spawnServer, waitFor, type ServerProcess } from './process.js';

export interface KubeApiserver {
  process: ServerProcess;
  /** https://127.0.0.1:<port> */
  server: string;
  /** The CA of the self-signed serving certificate, for client verification. */
  caPem: string;
}

/** The last certificate in apiserver.crt: the self-signed CA that signed the serving certificate. */
export function caOfSelfSigned(certChainPem: string): string {
  const certs = certChainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
  const ca = certs[certs.length - 1];
  if (!ca) throw new Error('apiserver.crt holds no certificate');
  return ca;
}

export async function startKubeApiserver(
  binary: string,
  options: LaunchOptions & { etcdUrl: string; port: number; certDir: string; credentials: ClusterCredentials },
): Promise<KubeApiserver> {
  const server = `https://127.0.0.1:${options.port}`;
  const process = spawnServer({
    name: 'kube-apiserver',
    command: binary,
    args: [
      `--etcd-servers=${options.etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${options.port}`,
      `--cert-dir=${options.certDir}`,
      '--authorization-mode=RBAC',
      `--token-auth-file=${options.credentials.tokenFile}`,
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${options.credentials.serviceAccountPublicKeyFile}`,
      `--service-account-signing-key-file=${options.credentials.serviceAccountKeyFile}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      // No nodes and a single loopback apiserver: nothing to reconcile the kubernetes service to.
      '--endpoint-reconciler-type=none',
      '--profiling=false',
    ],
    logFile: join(options.logDir, 'kube-apiserver.log'),
    lifeline: options.lifeline,
    detach: options.detach,
  });
  // The serving certificate appears before the port answers; readyz then waits for every
  // post-start hook (RBAC bootstrap roles included).
  const caPem = await waitFor(
    async () => caOfSelfSigned(await readFile(join(options.certDir, 'apiserver.crt'), 'utf8')),
    { what: 'the API server certificate', timeoutMs: 30_000, server: process },
  );
  const access = { server, caPem, token: options.credentials.adminToken, user: 'admin' };
  await waitFor(
    async () => ((await kubeRequest(access, 'GET', '/readyz', undefined, { timeoutMs: 5_000 })).status === 200 ? true : undefined),
    { what: `kube-apiserver /readyz at ${server}`, timeoutMs: 60_000, intervalMs: 200, server: process },
  );
  return { process, server, caPem };
}
