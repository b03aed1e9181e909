// The backend gates as they concern each MultiKueue worker cluster (docs/multikueue.md, "The
// backend gates and the worker clusters"): the write gate reviews each worker cluster's identity,
// and the start gate's probe makes its runtime copy there (step 5), so a worker cluster is proven
// by the latest preflight when the write gate is proven (its reviews there all allowed) and no
// reason of that preflight names it (the probe's step 5 there, say). What the gauge
// dispatch_worker_cluster_gate_proven reports; /readyz shows the reasons themselves.
import type { BackendGates } from '../model/results.js';

/** Whether a reason names the worker cluster: "worker cluster <name>" ends there, not in a longer name. */
export function namesWorkerCluster(reason: string, name: string): boolean {
  const at = `worker cluster ${name}`;
  for (let i = reason.indexOf(at); i !== -1; i = reason.indexOf(at, i + 1)) {
    if (!/[a-z0-9.-]/.test(reason.charAt(i + at.length))) return true;
  }
  return false;
}

/**
 * Each configured worker cluster, proven (true) or not by the latest preflight; empty before the
 * first has ended. A write gate not proven leaves every worker cluster unproven: its reviews there
 * were not all made (the manager's silence), or a denial there is among the reasons.
 */
export function workerClusterGates(gates: BackendGates | undefined, names: readonly string[]): Map<string, boolean> {
  if (gates === undefined) return new Map();
  return new Map(names.map((name) => [name, gates.reach && gates.write && !gates.reasons.some((reason) => namesWorkerCluster(reason, name))]));
}
