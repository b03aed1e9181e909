// Binding the small HTTP servers the worker and the codec server run (metrics, health, codec),
// from the "host:port" form the CLI takes, IPv6 hosts in brackets; over HTTPS when given a
// certificate, which, given as files, is re-read when they change (tls-files.ts).
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { log } from './log.js';
import { CertificateFiles, type TlsFiles } from './tls-files.js';

export type { TlsFiles } from './tls-files.js';

export interface ListeningServer {
  /** http(s)://host:port, with the port actually bound (port 0 picks a free one). */
  url: string;
  server: Server;
  close(): Promise<void>;
}

export function parseListenAddress(address: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(address.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65_535)
    throw new Error(`listen address ${address}: must be <host>:<port>, e.g. 127.0.0.1:9465 or [::]:9465`);
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

export async function listen(
  address: string,
  handler: RequestListener,
  tls?: TlsFiles,
): Promise<ListeningServer> {
  const { host, port } = parseListenAddress(address);
  const server: Server = tls ? serveTls(tls, handler) : createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new Error(`listen on ${address}: ${error.message}`)));
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const shown = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `${tls ? 'https' : 'http'}://${shown}:${bound.port}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * An HTTPS server; with files, it checks them as each connection arrives, before its handshake
 * (the listener runs ahead of the TLS layer's, which takes the server's context as it is then), so
 * that the first connection after a rotation already gets the new certificate. A pair that does not
 * load (a key that does not match, mid-way through a hand edit) leaves the previous one serving.
 */
function serveTls(tls: TlsFiles, handler: RequestListener): HttpsServer {
  if (!('certFile' in tls)) return createHttpsServer({ cert: tls.cert, key: tls.key }, handler);
  const files = new CertificateFiles(tls);
  const server = createHttpsServer(files.current(), handler);
  server.prependListener('connection', () => {
    try {
      const pem = files.changed();
      if (pem) {
        server.setSecureContext(pem);
        log('tls certificate reloaded', { certFile: tls.certFile, keyFile: tls.keyFile });
      }
    } catch (error) {
      log('tls certificate not reloaded: serving the previous one', { certFile: tls.certFile, keyFile: tls.keyFile, error: (error as Error).message });
    }
  });
  return server;
}

/** A port free on 127.0.0.1 now, for a server that cannot be asked which port it bound (Core's exporter). */
export async function freeLoopbackPort(): Promise<number> {
  const probe = createTcpServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
