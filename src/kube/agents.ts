// Connection reuse for @kubernetes/client-node. Its 1.x KubeConfig builds a new http(s).Agent for
// every request (applySecurityAuthentication), so every Kubernetes call opened a fresh connection
// and paid a TLS handshake on both sides. Here each KubeConfig keeps one keep-alive agent per set of
// TLS options instead, so credentials that rotate (a new client certificate) still get a new one.
// docs/performance.md has the before/after figures.
import { createHash } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];

const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/** What makes two agents interchangeable: their class and TLS options. */
function fingerprint(agent: HttpAgent): string {
  const options = (agent as HttpAgent & { options: AgentOptions }).options;
  const hash = createHash('sha256').update(agent.constructor.name);
  for (const field of TLS_FIELDS) hash.update(`\0${field}=`).update(String(options[field] ?? ''));
  return hash.digest('hex');
}

/** Makes `kc` reuse keep-alive connections across requests; returns it. */
export function reuseConnections(kc: KubeConfig): KubeConfig {
  const agents = new Map<string, HttpAgent>();
  const apply = kc.applySecurityAuthentication.bind(kc);
  kc.applySecurityAuthentication = async (context: RequestContext) => {
    await apply(context);
    const fresh = context.getAgent();
    // Proxy agents (cluster.proxyUrl) are left as they are.
    if (!fresh || (fresh.constructor !== HttpsAgent && fresh.constructor !== HttpAgent)) return;
    const key = fingerprint(fresh);
    let agent = agents.get(key);
    if (!agent) {
      const options = { ...(fresh as HttpAgent & { options: AgentOptions }).options, keepAlive: true };
      agent = fresh instanceof HttpsAgent ? new HttpsAgent(options) : new HttpAgent(options);
      agents.set(key, agent);
    }
    context.setAgent(agent);
  };
  return kc;
}
