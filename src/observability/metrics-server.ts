// GET /metrics: dispatch's registry in the Prometheus text format on the worker's
// --dispatch-metrics address. The Temporal SDK's own metrics are served by Core's exporter on
// --metrics, in plain HTTP only: with TLS on, the exporter listens on loopback and --metrics is
// served here, over HTTPS, from what it answers.
import type { Registry } from 'prom-client';
import { listen, type ListeningServer, type TlsFiles } from './listen.js';

interface Scraped {
  contentType: string;
  text: string;
}

function serveScrape(address: string, scrape: () => Promise<Scraped>, tls?: TlsFiles): Promise<ListeningServer> {
  return listen(address, (request, response) => {
    const path = new URL(request.url ?? '/', 'http://metrics').pathname;
    if (path !== '/metrics')
      return void response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: GET /metrics\n');
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return void response.writeHead(405, { Allow: 'GET, HEAD' }).end();
    scrape().then(
      ({ contentType, text }) =>
        response
          .writeHead(200, { 'Content-Type': contentType })
          .end(request.method === 'HEAD' ? undefined : text),
      (error: Error) => response.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${error.message}\n`),
    );
  }, tls);
}

export function serveMetrics(address: string, registry: Registry, tls?: TlsFiles): Promise<ListeningServer> {
  return serveScrape(address, async () => ({ contentType: registry.contentType, text: await registry.metrics() }), tls);
}

/** Core's exporter, at `upstream` (http://127.0.0.1:<port>), served again on `address`. */
export function serveSdkMetrics(address: string, upstream: string, tls?: TlsFiles): Promise<ListeningServer> {
  return serveScrape(address, async () => {
    const answer = await fetch(`${upstream}/metrics`, { signal: AbortSignal.timeout(10_000) });
    if (!answer.ok) throw new Error(`the Temporal SDK's exporter at ${upstream} answered ${answer.status}`);
    return { contentType: answer.headers.get('content-type') ?? 'text/plain; version=0.0.4', text: await answer.text() };
  }, tls);
}
