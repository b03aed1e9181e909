// The certificates of the local admission and conversion webhooks: one CA of the harness's own and
// one serving certificate for 127.0.0.1, shared by the JobSet, Trainer and Kueue webhook servers.
// The API server reaches them by URL (no Service), trusting the CA through each caBundle.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface WebhookPki {
  /** Folder holding tls.crt and tls.key (controller-runtime's file names). */
  certDir: string;
  caPem: string;
  /** base64 of the CA, as a webhook's or a CRD conversion's caBundle. */
  caBundle: string;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });

/** Writes a fresh CA and a serving certificate (SAN IP:127.0.0.1, DNS:localhost) into `dir`. */
export function writeWebhookPki(dir: string): WebhookPki {
  mkdirSync(dir, { recursive: true });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '3650', '-subj', '/CN=dispatch-kubeflow local webhook CA'], dir);
  openssl(['req', ...ec, '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=127.0.0.1'], dir);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  const sign = ['x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'tls.crt'];
  openssl([...sign, '-days', '3650', '-extfile', 'san.ext'], dir);
  const caPem = readFileSync(join(dir, 'ca.crt'), 'utf8');
  return { certDir: dir, caPem, caBundle: Buffer.from(caPem).toString('base64') };
}
