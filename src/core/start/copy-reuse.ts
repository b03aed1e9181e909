// Step 5 (docs/start.md): a retried Start that finds a runtime copy of its name reuses it only if the copy
// has no owner and its spec equals the source runtime's; otherwise Start refuses with ErrRejected.
import type { TrainerRuntime } from '../../model/kube.js';
import { deepEqual } from '../objects/deep-equal.js';

/** Why an existing runtime copy may not be reused; empty when it may. */
export function copyReuseReasons(existing: TrainerRuntime, wanted: TrainerRuntime): string[] {
  const where = `runtime copy ${existing.metadata?.namespace ?? ''}/${existing.metadata?.name ?? ''}`;
  const reasons: string[] = [];
  const owners = existing.metadata?.ownerReferences ?? [];
  if (owners.length > 0) {
    reasons.push(`${where} already exists and is owned by ${owners.map((o) => `${o.kind}/${o.name}`).join(', ')}`);
  }
  if (!deepEqual(existing.spec, wanted.spec)) {
    reasons.push(`${where} already exists and its spec differs from the source runtime's`);
  }
  return reasons;
}
