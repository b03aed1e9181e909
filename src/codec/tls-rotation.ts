// The codec server's certificate and key, read again when they change (cert-manager renews a
// certificate by rewriting its Secret; the mounted files change under the running server). Each new
// connection first stats the two files, before its handshake begins, so the first connection after
// a rotation is served with the new certificate; connections already open keep the one they began
// with. A pair that does not load (a key that does not match its certificate, as between two writes
// of a rotation done by hand) leaves the last good pair in use, and is logged once.
import type { Server } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { TlsFiles } from '../observability/listen.js';
import { ReloadingFiles } from './reloading-files.js';

type Log = (message: string, fields?: Record<string, unknown>) => void;

/** Serves each new connection of `server` with the certificate and key the files hold now. */
export function rotateTlsOnChange(server: Server, certFile: string, keyFile: string, log: Log): void {
  const files = new ReloadingFiles(
    [certFile, keyFile],
    ([cert, key]): TlsFiles => {
      // Throws when the key does not match the certificate, or either is not PEM.
      createSecureContext({ cert, key });
      return { cert: cert!, key: key! };
    },
    (pair) => {
      server.setSecureContext(pair);
      log('codec server reloaded its TLS certificate', { certFile, keyFile });
    },
  );
  let keptFor: string | undefined;
  try {
    files.currentSync();
  } catch {
    // Read at start by the command already; a failure here shows on the first connection.
  }
  // Before Node's own connection listener, which begins the handshake with the context set now.
  server.prependListener('connection', () => {
    try {
      files.currentSync();
      keptFor = undefined;
    } catch (error) {
      const reason = (error as Error).message;
      if (reason !== keptFor)
        log('codec server keeps its TLS certificate', {
          certFile,
          keyFile,
          reason: `the files do not load: ${reason}`,
        });
      keptFor = reason;
    }
  });
}
