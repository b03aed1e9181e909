// A fault-injecting HTTP proxy in front of the API server, driven from tests. Clients speak plain
// HTTP to it on loopback; it forwards to the API server's HTTPS with the client's own bearer token,
// streaming responses (watches included) as they come. For a chosen method and path, the next N
// matching requests get a fault instead:
//
//   drop-response  forward, let the server act, then close the client's socket without an answer
//   hold-response  forward, let the server act, then keep the answer from the client until it gives
//                  up: the request stays open, so a test can kill the client while it is in flight
//   hang           forward nothing, answer nothing, until the client gives up
//   reset          forward nothing, reset the connection (TCP RST)
//   status-500     forward nothing, answer 500 with a Status body
//   status-429     forward nothing, answer 429 with a Status body and Retry-After: 1
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigFor, kubeconfigYaml, type KubeAccess } from './kube-access.js';

export type FaultAction = 'drop-response' | 'hold-response' | 'hang' | 'reset' | 'status-500' | 'status-429' | 'delay';

export interface FaultRule {
  /** HTTP method, any case; every method when absent. */
  method?: string;
  /** Matched against the URL's path (no query): a RegExp, or a string for an exact path. */
  path: RegExp | string;
  /** Only watch requests (true), only non-watch requests (false), or both (absent). */
  watch?: boolean;
  /** Only requests whose query parameters pass (e.g. one label selector among a path's lists); all when absent. */
  query?: (params: URLSearchParams) => boolean;
  /** How many matching requests get the fault; 1 when absent. Infinity for all of them. */
  times?: number;
  action: FaultAction;
  /** `delay`: how long the request waits before it is forwarded (default 2 s). */
  delayMs?: number;
}

export interface Fault {
  readonly rule: Readonly<FaultRule>;
  /** Requests this fault has taken so far. */
  readonly hits: number;
  /** Requests it will still take. */
  readonly remaining: number;
}

export interface ProxiedRequest {
  method: string;
  /** The URL's path, without the query. */
  path: string;
  /** The query string, without "?". */
  query: string;
  watch: boolean;
  /** The fault applied, if any. */
  fault?: FaultAction;
  /** Status the API server answered, when the request was forwarded and answered. */
  upstreamStatus?: number;
  /** Status the client received; absent when it received none (drop-response, hold-response, hang, reset). */
  status?: number;
  /** Date.now() when the request arrived. */
  at: number;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

const STATUS_FAULTS = {
  'status-500': { code: 500, reason: 'InternalError', message: 'fault proxy: injected internal error' },
  'status-429': { code: 429, reason: 'TooManyRequests', message: 'fault proxy: injected throttling' },
} as const;

function isWatch(url: URL): boolean {
  const watch = url.searchParams.get('watch');
  return watch === 'true' || watch === '1' || url.pathname.includes('/watch/');
}

function copyHeaders(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(key)) out[key] = value;
  return out;
}

class ActiveFault implements Fault {
  hits = 0;
  constructor(readonly rule: Readonly<FaultRule>) {}
  get remaining(): number {
    return (this.rule.times ?? 1) - this.hits;
  }
  matches(method: string, url: URL): boolean {
    const { rule } = this;
    if (this.remaining <= 0) return false;
    if (rule.method !== undefined && rule.method.toUpperCase() !== method) return false;
    if (rule.watch !== undefined && rule.watch !== isWatch(url)) return false;
    if (rule.query !== undefined && !rule.query(url.searchParams)) return false;
    return typeof rule.path === 'string' ? rule.path === url.pathname : rule.path.test(url.pathname);
  }
}

export class FaultProxy {
  /** Every request seen, in arrival order. */
  readonly requests: ProxiedRequest[] = [];
  private faults: ActiveFault[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly agent: Agent;

  private constructor(
    private readonly upstream: KubeAccess,
    private readonly server: Server,
    /** http://127.0.0.1:<port> */
    readonly url: string,
  ) {
    this.agent = new Agent({ keepAlive: true, ca: upstream.caPem });
  }

  /** Starts a proxy on a free loopback port in front of `upstream`'s server. */
  static async start(upstream: KubeAccess): Promise<FaultProxy> {
    const server = createServer({ noDelay: true, requestTimeout: 0 });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('fault proxy: no port');
    const proxy = new FaultProxy(upstream, server, `http://127.0.0.1:${address.port}`);
    server.on('connection', (socket) => {
      proxy.sockets.add(socket);
      socket.once('close', () => proxy.sockets.delete(socket));
    });
    server.on('request', (req, res) => proxy.handle(req, res));
    return proxy;
  }

  /** Adds a fault; earlier faults are tried first. */
  inject(rule: FaultRule): Fault {
    const fault = new ActiveFault({ ...rule });
    this.faults.push(fault);
    return fault;
  }

  /** Removes one fault, used up or not (requests it already holds stay held). */
  remove(fault: Fault): void {
    this.faults = this.faults.filter((f) => f !== fault);
  }

  /** Removes every fault not yet used up. Requests already hanging stay hung until their client gives up. */
  clear(): void {
    this.faults = [];
  }

  /** `access` (an identity of the API server) reached through this proxy. */
  accessFor(access: KubeAccess = this.upstream): KubeAccess {
    return { server: this.url, token: access.token, user: access.user, namespace: access.namespace };
  }

  /** A @kubernetes/client-node KubeConfig that goes through this proxy. */
  kubeConfig(access?: KubeAccess): KubeConfig {
    return kubeConfigFor(this.accessFor(access));
  }

  /** A kubeconfig file's text that goes through this proxy. */
  kubeconfigYaml(access?: KubeAccess): string {
    return kubeconfigYaml(this.accessFor(access));
  }

  /**
   * Cuts every open client connection (watches, keep-alive connections, requests in flight) as a
   * reset would, and goes on proxying: clients must reconnect.
   */
  cutConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** Stops listening and cuts every open connection, hanging and watching ones included. */
  async close(): Promise<void> {
    this.faults = [];
    const closed = new Promise((resolve) => this.server.close(resolve));
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', this.url);
    const entry: ProxiedRequest = { method, path: url.pathname, query: url.search.slice(1), watch: isWatch(url), at: Date.now() };
    this.requests.push(entry);
    const fault = this.faults.find((f) => f.matches(method, url));
    if (fault) {
      fault.hits++;
      entry.fault = fault.rule.action;
    }
    res.once('finish', () => (entry.status = res.statusCode));
    switch (fault?.rule.action) {
      case 'hang':
        req.resume();
        return;
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'status-500':
      case 'status-429': {
        req.resume();
        const status = STATUS_FAULTS[fault.rule.action];
        const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...status, details: { retryAfterSeconds: 1 } });
        res.writeHead(status.code, { 'Content-Type': 'application/json', 'Retry-After': '1' }).end(body);
        return;
      }
      case 'delay':
        // A slow network or API server: the request reaches the server late, then goes as usual.
        req.pause();
        setTimeout(() => this.forward(req, res, entry, false), fault.rule.delayMs ?? 2_000);
        return;
      default:
        this.forward(req, res, entry, fault?.rule.action === 'drop-response', fault?.rule.action === 'hold-response');
    }
  }

  private forward(req: IncomingMessage, res: ServerResponse, entry: ProxiedRequest, dropResponse: boolean, holdResponse = false): void {
    const target = new URL(req.url ?? '/', this.upstream.server);
    let answered: IncomingMessage | undefined;
    const upstreamReq = httpsRequest(target, { method: req.method, headers: copyHeaders(req.headers), agent: this.agent }, (upstreamRes) => {
      answered = upstreamRes;
      entry.upstreamStatus = upstreamRes.statusCode;
      if (holdResponse) {
        // The server has acted; the client waits on an open socket until it gives up.
        upstreamRes.resume();
        return;
      }
      if (dropResponse) {
        // The server has acted once it answers; the client must never hear it. A watch never
        // ends, so its socket is cut on the headers; anything else after the whole answer.
        const cut = () => {
          req.socket.destroy();
          upstreamReq.destroy();
        };
        if (entry.watch) cut();
        else upstreamRes.resume().once('end', cut);
        return;
      }
      res.writeHead(upstreamRes.statusCode ?? 502, copyHeaders(upstreamRes.headers));
      res.flushHeaders();
      upstreamRes.pipe(res);
    });
    // A client that goes away (a watch being stopped) must not leave the upstream request open.
    res.once('close', () => {
      if (!answered?.complete) upstreamReq.destroy();
    });
    upstreamReq.once('error', () => {
      if (dropResponse || res.headersSent) req.socket.destroy();
      else res.writeHead(502, { 'Content-Type': 'text/plain' }).end('fault proxy: API server unreachable');
    });
    req.pipe(upstreamReq);
  }
}
