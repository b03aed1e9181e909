// The create of steps 5 and 6: create; on 409 read what is there and let the pure decision
// (src/core/start/create-conflict.ts) say whether to create again, wait for a deletion, adopt or refuse.
import { decideConflict, type ConflictRule, type Refuse } from '../core/start/create-conflict.js';
import { classifyRefusal } from '../core/start/refusal-type.js';
import { isRuntimeCacheLag, runtimeLagBudgetMs, runtimeLagPauseMs, runtimeStillUnseen } from '../core/start/runtime-lag.js';
import type { KubeObject } from '../model/kube.js';
import { describeRefusal } from './call.js';
import { objectAddress, type NamespacedKind, type ObjectCalls } from './objects.js';

/** How often a wait for an object being deleted checks again. */
export const DELETION_POLL_MS = 500;

/** What the create loop needs of its caller: its bound, and a pause that shows what it waits for. */
export interface CreateWaits {
  /** The caller's whole bound (the activity's start-to-close timeout, CallBound); 0 when none. */
  boundMs: number;
  /** Waits `ms`, reporting `details` (the activity heartbeats them); throws when cancelled. */
  pause(ms: number, details: { waitingFor: string }): Promise<void>;
}

/**
 * A refusal after a 409 carries the object in the way, as the read after the 409 saw it. `unseen`:
 * step 6's webhook went on denying this Start's own runtime copy, which exists, for the whole budget.
 */
export type CreateOutcome =
  | { do: 'created' | 'adopt'; uid: string }
  | (Refuse & { existing?: KubeObject })
  | { do: 'unseen'; reason: string };

/** A definite refusal of a call, typed by classifyRefusal: ErrReadOnly for RBAC's 403 alone (docs/contract.md §6). */
export function refusedCall(what: string, answer: { status: number; reason: string; message: string }): Refuse {
  const { type, reason } = classifyRefusal(what, answer, describeRefusal(answer));
  return { do: 'refuse', type, reasons: [reason] };
}

/**
 * Creates `body`, or finds the object of its name that `rule` says is this Start's. A refusal is
 * returned, not thrown, so that the step can undo what came before it. Unanswered throws KubeUnanswered.
 */
export async function createOrAdopt(
  calls: ObjectCalls,
  kind: NamespacedKind,
  body: KubeObject,
  rule: ConflictRule,
  waits: CreateWaits,
  requestTimeoutMs = 0,
): Promise<CreateOutcome> {
  const { name = '', namespace = '' } = body.metadata ?? {};
  const where = objectAddress(kind, namespace, name);
  // Step 6's retries of a webhook's lag end within the activity's CallBound (runtime-lag.ts).
  const lagUntil = Date.now() + runtimeLagBudgetMs(waits.boundMs, requestTimeoutMs);
  let lagged = 0;
  for (;;) {
    const created = await calls.create(kind, namespace, body);
    if (created.answered === 'ok') return { do: 'created', uid: created.value.metadata?.uid ?? '' };
    // Step 6: Trainer's webhook has not seen this Start's runtime copy yet (runtime-lag.ts).
    if (rule.adopt === 'same-token' && isRuntimeCacheLag(created, rule.copyName)) {
      if (Date.now() >= lagUntil) return { do: 'unseen', reason: runtimeStillUnseen(`creating ${where}`, rule.copyName, lagged + 1, describeRefusal(created)) };
      lagged += 1;
      const ms = Math.min(runtimeLagPauseMs(lagged), Math.max(0, lagUntil - Date.now()));
      await waits.pause(ms, { waitingFor: `Trainer's webhook to see runtime copy ${rule.copyName} (denied ${lagged} time(s))` });
      continue;
    }
    if (created.status !== 409) return refusedCall(`creating ${where}`, created);

    const read = await calls.get(kind, namespace, name);
    if (read.answered === 'definite' && read.status !== 404) return refusedCall(`reading existing ${where}`, read);
    const existing = read.answered === 'ok' ? read.value : undefined;
    const decision = decideConflict({ where, existing, rule });
    if (decision.do === 'wait') await waits.pause(DELETION_POLL_MS, { waitingFor: decision.reason });
    else if (decision.do === 'refuse') return { ...decision, existing };
    else if (decision.do !== 'retry') return decision;
  }
}
