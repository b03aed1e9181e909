// How a client reaches the local API server: its URL, the CA of its self-signed serving
// certificate, and a bearer token from the static token file. One shape serves the admin and the
// restricted identity, the fault proxy, kubeconfig files and @kubernetes/client-node.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

export interface KubeAccess {
  /** https://127.0.0.1:<port> for the API server, http://127.0.0.1:<port> for the fault proxy. */
  server: string;
  /** PEM of the CA that signed the API server's certificate; absent for plain HTTP. */
  caPem?: string;
  token: string;
  /** The user name the token authenticates as (for messages and kubeconfig entries). */
  user: string;
  /** The kubeconfig context's default namespace. */
  namespace?: string;
}

/** A kubeconfig file's text for one identity. */
export function kubeconfigYaml(access: KubeAccess): string {
  const cluster: Record<string, string | boolean> = { server: access.server };
  if (access.caPem) cluster['certificate-authority-data'] = Buffer.from(access.caPem).toString('base64');
  // @kubernetes/client-node refuses a plain-HTTP server (the fault proxy) unless this is set; it
  // has no effect on plain HTTP itself.
  else if (access.server.startsWith('http:')) cluster['insecure-skip-tls-verify'] = true;
  // client-node refuses plain HTTP (the fault proxy's side) unless TLS verification is off.
  if (access.server.startsWith('http://')) cluster['insecure-skip-tls-verify'] = true;
  const context: Record<string, string> = { cluster: 'dispatch-local', user: access.user };
  if (access.namespace) context.namespace = access.namespace;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'dispatch-local', cluster }],
    users: [{ name: access.user, user: { token: access.token } }],
    contexts: [{ name: access.user, context }],
    'current-context': access.user,
  });
}

/** A @kubernetes/client-node KubeConfig for one identity. */
export function kubeConfigFor(access: KubeAccess): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigYaml(access));
  return kc;
}

export interface KubeResponse {
  status: number;
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * One raw API call. Used where @kubernetes/client-node's typed models would get in the way:
 * health endpoints, discovery, and CRDs and apply patches that must reach the server verbatim
 * (its serializer maps `x-kubernetes-*` keys to camelCase fields and drops what it does not know).
 */
export function kubeRequest(
  access: KubeAccess,
  method: string,
  path: string,
  body?: unknown,
  options: { contentType?: string; timeoutMs?: number } = {},
): Promise<KubeResponse> {
  const url = new URL(path, access.server);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = { Authorization: `Bearer ${access.token}`, Accept: 'application/json' };
  if (payload !== undefined) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method, headers, ca: access.caPem, timeout: options.timeoutMs ?? 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('error', reject);
      res.once('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: text, json });
      });
    });
    req.once('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${options.timeoutMs ?? 30_000} ms`)));
    req.once('error', reject);
    req.end(payload);
  });
}

/** kubeRequest that fails on any status outside 2xx, naming the call and the server's message. */
export async function kubeCall(
  access: KubeAccess,
  method: string,
  path: string,
  body?: unknown,
  options: { contentType?: string; timeoutMs?: number } = {},
): Promise<unknown> {
  const res = await kubeRequest(access, method, path, body, options);
  if (res.status < 200 || res.status > 299) {
    const message = (res.json as { message?: string } | undefined)?.message ?? res.body.slice(0, 500);
    throw new Error(`${method} ${path} as ${access.user}: HTTP ${res.status}: ${message}`);
  }
  return res.json;
}
