// GET /readyz and GET /livez on the worker's --health address (default 0.0.0.0:8081, the port
// controller-runtime's managers use for theirs): 200 when ok, 503 when not, and a JSON body that
// names every condition not met, e.g. {"ready":false,"reasons":["temporal: no answer ..."]}.
// /readyz's body also reports the backend (the preflight's gates), which does not decide its status:
// {"ready":true,"reasons":[],"backend":{"healthy":false,"reasons":["gates: reach not proven at ...","gates: reach: no answer"]}}.
// A server of its own, apart from the metrics ports, so that a probe never waits behind a scrape.
import type { ServerResponse } from 'node:http';
import type { Health, HealthSource, Readiness } from '../core/health.js';
import { listen, type ListeningServer, type TlsFiles } from './listen.js';

function answer(response: ServerResponse, key: 'ready' | 'alive', health: Health | Readiness, head: boolean): void {
  const backend = 'backend' in health ? { backend: { healthy: health.backend.ok, reasons: health.backend.reasons } } : {};
  const body = `${JSON.stringify({ [key]: health.ok, reasons: health.reasons, ...backend })}\n`;
  response.writeHead(health.ok ? 200 : 503, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(head ? undefined : body);
}

export function serveHealth(address: string, source: HealthSource, tls?: TlsFiles): Promise<ListeningServer> {
  return listen(address, (request, response) => {
    const path = new URL(request.url ?? '/', 'http://health').pathname;
    if (path !== '/readyz' && path !== '/livez')
      return void response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: GET /readyz or GET /livez\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') return void response.writeHead(405, { Allow: 'GET, HEAD' }).end();
    const head = request.method === 'HEAD';
    if (path === '/livez') return answer(response, 'alive', source.liveness(), head);
    source.readiness().then(
      (readiness) => answer(response, 'ready', readiness, head),
      (error: Error) => answer(response, 'ready', { ok: false, reasons: [`health: ${error.message}`] }, head),
    );
  }, tls);
}
