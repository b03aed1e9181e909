// A self-signed certificate for 127.0.0.1 and localhost, made with Debian's openssl for one test run,
// for the codec server's --tls-cert and --tls-key; and what a client needs to trust exactly it.
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  dir: string;
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
  /** base64 SHA-256 of the public key (SPKI), as Chromium's --ignore-certificate-errors-spki-list takes it. */
  spkiSha256: string;
  remove(): void;
}

export function testCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'dk-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const cert = readFileSync(certFile);
  const spki = new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' });
  return {
    dir,
    certFile,
    keyFile,
    cert,
    key: readFileSync(keyFile),
    spkiSha256: createHash('sha256').update(spki).digest('base64'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
