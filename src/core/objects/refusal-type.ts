// Which failure a definite refusal of a Kubernetes call is (docs/contract.md §6, amended 2026-11-30), in
// one place for every activity that decides it. An admission webhook's denial is the cluster
// refusing the object, whatever its status (controller-runtime's webhooks deny with 403): it is
// ErrRejected, like 400 and 422 Invalid. Only the authorizer's 403, whose message the API server
// writes as `<resource> ["<name>"] is forbidden: User "<user>" cannot <verb> ...`
// (k8s.io/apiserver, responsewriters.ForbiddenStatusError), is a missing permission: ErrReadOnly.
// Any other 403 (a namespace being terminated, an exceeded quota, a ValidatingAdmissionPolicy) is
// the cluster refusing the object too.

/** What a definite refusal is: ErrReadOnly for a missing permission, ErrRejected otherwise. */
export type RefusalType = 'ErrReadOnly' | 'ErrRejected';

/** The part of a definite answer the type depends on: its HTTP status and its Status message. */
export interface Refusal {
  status: number;
  message: string;
}

const HTTP_FORBIDDEN = 403;

/** The API server's wording of a webhook's denial (admission/plugin/webhook/errors.ToStatusErr). */
const WEBHOOK_DENIAL = /admission webhook ".*" denied the request/;

/** The authorizer's wording: "forbidden: User "<user>" cannot <verb> ..." (forbiddenMessage). */
const AUTHORIZER_FORBIDDEN = /\bforbidden: User ".*" cannot /;

/** Whether an answer is an admission webhook's denial. */
export function isWebhookDenial(refusal: Refusal): boolean {
  return WEBHOOK_DENIAL.test(refusal.message);
}

/** ErrReadOnly for RBAC's (the authorizer's) 403 alone; ErrRejected for every other definite refusal. */
export function refusalType(refusal: Refusal): RefusalType {
  const rbac =
    refusal.status === HTTP_FORBIDDEN &&
    !isWebhookDenial(refusal) &&
    AUTHORIZER_FORBIDDEN.test(refusal.message);
  return rbac ? 'ErrReadOnly' : 'ErrRejected';
}

/**
 * A refused call's type and the reason naming it: `<what> is forbidden (<detail>)` for a missing
 * permission, `<what>: <detail>` for the cluster refusing it. `detail` describes the answer
 * ("HTTP 403 Forbidden: ...", src/kube/call.ts describeRefusal).
 */
export function classifyRefusal(
  what: string,
  refusal: Refusal,
  detail: string,
): { type: RefusalType; reason: string } {
  const type = refusalType(refusal);
  return { type, reason: type === 'ErrReadOnly' ? `${what} is forbidden (${detail})` : `${what}: ${detail}` };
}
