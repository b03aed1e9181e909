// GET /metrics: dispatch's registry in the Prometheus text format. The Temporal SDK's own metrics
// are served by Core's exporter on the worker's --metrics address; this one is --dispatch-metrics.
import type { Registry } from 'prom-client';
import { listen, type ListeningServer } from './listen.js';

export function serveMetrics(address: string, registry: Registry): Promise<ListeningServer> {
  return listen(address, (request, response) => {
    const path = new URL(request.url ?? '/', 'http://metrics').pathname;
    if (path !== '/metrics')
      return void response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: GET /metrics\n');
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return void response.writeHead(405, { Allow: 'GET, HEAD' }).end();
    registry.metrics().then(
      (text) =>
        response
          .writeHead(200, { 'Content-Type': registry.contentType })
          .end(request.method === 'HEAD' ? undefined : text),
      (error: Error) => response.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${error.message}\n`),
    );
  });
}
