// The AdmissionCheck reconciler (as Kueue's provisioning admissioncheck_reconciler.go): reads
// dispatch's AdmissionCheck and keeps it `Active: True` (the core decides, src/core/admission/check-active.ts).
import { admissionChecks } from '../../kube/objects.js';
import { admissionCheckActivePatch } from '../../core/admission/check-active.js';
import type { OperationConfig } from '../../core/operations/observed.js';
import type { AdmissionCheck } from '../../model/kube.js';
import { DispatchAdmissionCheck } from '../../model/constants.js';
import type { AdmissionPass } from './pass.js';

/** Reconciles the AdmissionCheck; answers it as read, or undefined when the read was refused. */
export async function reconcileAdmissionCheck(pass: AdmissionPass, config: OperationConfig): Promise<AdmissionCheck | undefined> {
  const name = config.kueue.admissionCheck;
  const answer = await pass.ask(() => pass.calls.getClusterScoped(admissionChecks(pass.workloadVersion), name));
  if (answer.answered === 'definite') {
    pass.refused(`reading ${DispatchAdmissionCheck.kind} ${name}`, answer);
    return undefined;
  }
  const check = answer.value as AdmissionCheck;
  const active = admissionCheckActivePatch(check, config, pass.at);
  if (active.action === 'patch') await pass.write(active.write, 'active');
  return check;
}
