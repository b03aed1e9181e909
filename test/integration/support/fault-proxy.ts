// The fault proxy for integration tests: in front of the run's API server, in the test's own
// process, so the test drives it directly.
import { FaultProxy } from '../../../dev/harness/fault-proxy.js';
import { kubeAccess } from './kube.js';

export type { Fault, FaultAction, FaultRule, ProxiedRequest } from '../../../dev/harness/fault-proxy.js';
export { FaultProxy };

/**
 * Starts a proxy in front of the API server. `proxy.kubeConfig()` goes through it as the admin;
 * `proxy.kubeConfig(kubeAccess('restricted'))` as the restricted identity. Close it in afterAll.
 */
export async function startFaultProxy(): Promise<FaultProxy> {
  return FaultProxy.start(kubeAccess('admin'));
}
