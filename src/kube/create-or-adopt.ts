// A create that may meet an object of its name: create; on 409 read what is there and let the
// caller's decision (for Start's steps 5 and 6, src/core/start/create-conflict.ts) say whether to
// create again, wait for a deletion, adopt or refuse.
import type { DecideConflict, Refuse } from '../core/objects/create-decision.js';
import { classifyRefusal } from '../core/objects/refusal-type.js';
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
 * The caller's rule for a webhook that denies a create because its cache has not seen an object the
 * created one refers to, which exists (step 6: Trainer's webhook and the runtime copy): such a
 * denial is tried again, with pauses, for `budgetMs` from the loop's start.
 */
export interface LagRule {
  /** Whether a definite refusal of the create is such a denial. */
  matches(answer: { status: number; message: string }): boolean;
  budgetMs: number;
  /** The pause before the create after the `denials`-th such denial (1-based). */
  pauseMs(denials: number): number;
  /** What the pause waits for, as the heartbeat details say. */
  waitingFor(denials: number): string;
}

/**
 * A refusal after a 409 carries the object in the way, as the read after the 409 saw it. `unseen`:
 * the lag rule's webhook went on denying for the whole budget; `answer` is its last denial.
 */
export type CreateOutcome = AnsweredCreate | { do: 'unseen'; denials: number; answer: string };
/** What a create without a lag rule ends with. */
export type AnsweredCreate = { do: 'created' | 'adopt'; uid: string } | (Refuse & { existing?: KubeObject });

/** A definite refusal of a call, typed by classifyRefusal: ErrReadOnly for RBAC's 403 alone (docs/contract.md §6). */
export function refusedCall(what: string, answer: { status: number; reason: string; message: string }): Refuse {
  const { type, reason } = classifyRefusal(what, answer, describeRefusal(answer));
  return { do: 'refuse', type, reasons: [reason] };
}

/**
 * Creates `body`, or finds the object of its name that `decide` says is the caller's. A refusal is
 * returned, not thrown, so that the step can undo what came before it. Unanswered throws KubeUnanswered.
 */
export async function createOrAdopt(calls: ObjectCalls, kind: NamespacedKind, body: KubeObject, decide: DecideConflict, waits: CreateWaits): Promise<AnsweredCreate>;
export async function createOrAdopt(
  calls: ObjectCalls,
  kind: NamespacedKind,
  body: KubeObject,
  decide: DecideConflict,
  waits: CreateWaits,
  lag: LagRule,
): Promise<CreateOutcome>;
export async function createOrAdopt(
  calls: ObjectCalls,
  kind: NamespacedKind,
  body: KubeObject,
  decide: DecideConflict,
  waits: CreateWaits,
  lag?: LagRule,
): Promise<CreateOutcome> {
  const { name = '', namespace = '' } = body.metadata ?? {};
  const where = objectAddress(kind, namespace, name);
  const lagUntil = Date.now() + (lag?.budgetMs ?? 0);
  let lagged = 0;
  for (;;) {
    const created = await calls.create(kind, namespace, body);
    if (created.answered === 'ok') return { do: 'created', uid: created.value.metadata?.uid ?? '' };
    if (lag?.matches(created)) {
      lagged += 1;
      if (Date.now() >= lagUntil) return { do: 'unseen', denials: lagged, answer: describeRefusal(created) };
      const ms = Math.min(lag.pauseMs(lagged), Math.max(0, lagUntil - Date.now()));
      await waits.pause(ms, { waitingFor: lag.waitingFor(lagged) });
      continue;
    }
    if (created.status !== 409) return refusedCall(`creating ${where}`, created);

    const read = await calls.get(kind, namespace, name);
    if (read.answered === 'definite' && read.status !== 404) return refusedCall(`reading existing ${where}`, read);
    const existing = read.answered === 'ok' ? read.value : undefined;
    const decision = decide(existing, where);
    if (decision.do === 'wait') await waits.pause(DELETION_POLL_MS, { waitingFor: decision.reason });
    else if (decision.do === 'refuse') return { ...decision, existing };
    else if (decision.do !== 'retry') return decision;
  }
}
