// Binding the small HTTP servers the worker and the codec server run (metrics, codec), from the
// "host:port" form the CLI takes, IPv6 hosts in brackets; over HTTPS when given a certificate.
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** A PEM certificate (chain) and its private key, for HTTPS. */
export interface TlsFiles {
  cert: string | Buffer;
  key: string | Buffer;
}

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
  const server: Server = tls
    ? createHttpsServer({ cert: tls.cert, key: tls.key }, handler)
    : createServer(handler);
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
