// Step 9 of Start, in Kueue mode: whether the TrainJob's Workload exists, carries dispatch's gate
// and lists the configured admission check. Each reason names what is not yet right; the
// activity keeps checking every second until none is left or timeouts.workload has passed.
import type { Config } from '../../model/config.js';
import { Annotations, Labels } from '../../model/constants.js';
import type { Workload } from '../../model/kube.js';
import { gatesOf } from '../objects/gates.js';
import { workloadLabelSelector } from '../objects/workloads.js';

/** Why the Workload is not yet as Start needs it; empty when it is. */
export function checkWorkload(workload: Workload | undefined, trainJobUid: string, config: Config): string[] {
  if (workload === undefined) {
    return [`Workload: none labelled ${workloadLabelSelector(trainJobUid)} in ${config.namespace}`];
  }
  const meta = workload.metadata ?? {};
  const what = `Workload ${meta.namespace ?? config.namespace}/${meta.name ?? '?'}`;
  const reasons: string[] = [];

  const uid = meta.labels?.[Labels.kueueJobUid];
  if (uid !== trainJobUid) {
    reasons.push(
      `${what}: label ${Labels.kueueJobUid} is ${uid === undefined ? 'absent' : JSON.stringify(uid)}, not ${JSON.stringify(trainJobUid)}`,
    );
  }
  const gate = config.kueue.gate;
  const gatedBy = meta.annotations?.[Annotations.kueueAdmissionGatedBy];
  if (!gatesOf(gatedBy).includes(gate)) {
    reasons.push(
      `${what}: annotation ${Annotations.kueueAdmissionGatedBy} lacks ${gate} (is ${gatedBy === undefined ? 'absent' : JSON.stringify(gatedBy)})`,
    );
  }
  const check = config.kueue.admissionCheck;
  const checks = Array.isArray(workload.status?.admissionChecks) ? workload.status.admissionChecks : [];
  if (!checks.some((c) => c?.name === check)) {
    reasons.push(`${what}: status.admissionChecks lacks ${check}`);
  }
  return reasons;
}
