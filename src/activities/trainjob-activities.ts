// Steps 6, 7 and 8 of Start (its undo is undo-start-activities.ts).
import { Context } from '@temporalio/activity';
import { Trainer } from '../model/constants.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { DispatchError, type ErrorType } from '../model/errors.js';
import type { KubeObject, TrainJob } from '../model/kube.js';
import { attemptTokenOf, conflictRule } from '../core/start/create-conflict.js';
import { isRuntimeCacheLag, lagEnd, runtimeLagBudgetMs, runtimeLagPauseMs, runtimeNeverSeen, runtimeStillUnseen } from '../core/start/runtime-lag.js';
import { callsFor, createWaits, type ActivityEnv } from './context.js';
import { createOrAdopt, type LagRule } from '../kube/create-or-adopt.js';
import type { SettingsView } from './settings-activities.js';
import { describeRefusal, type KubeAnswer } from '../kube/call.js';
import { objectAddress, TRAINING_RUNTIMES, TRAINJOBS, type NamespacedKind, type ObjectCalls } from '../kube/objects.js';
import type { CreatedObject } from './runtime-activities.js';

/** Deletes by UID, treating "already gone" and "not ours any more" as done. Unanswered throws (retried). */
async function deleteOwn(calls: ObjectCalls, kind: NamespacedKind, namespace: string, object: CreatedObject): Promise<string | undefined> {
  const answer: KubeAnswer<unknown> = await calls.deleteByUid(kind, namespace, object.name, object.uid);
  if (answer.answered === 'ok' || answer.status === 404 || answer.status === 409) return undefined;
  return `deleting ${objectAddress(kind, namespace, object.name)}: ${describeRefusal(answer)}`;
}

/** Step 6's rule for Trainer's (or Kueue's) webhook not having seen this Start's copy yet (runtime-lag.ts). */
function copyLag(copyName: string, boundMs: number, requestTimeoutMs: number): LagRule {
  return {
    matches: (answer) => isRuntimeCacheLag(answer, copyName),
    budgetMs: runtimeLagBudgetMs(boundMs, requestTimeoutMs),
    pauseMs: runtimeLagPauseMs,
    waitingFor: (denials) => `Trainer's webhook to see runtime copy ${copyName} (denied ${denials} time(s))`,
  };
}

/** How long the copy has existed by the API server's clock (its creationTimestamp), if it can be read. */
async function copyAgeMs(calls: ObjectCalls, namespace: string, copy: CreatedObject): Promise<number | undefined> {
  const read = await calls.get(TRAINING_RUNTIMES, namespace, copy.name).catch(() => undefined);
  if (read?.answered !== 'ok') return undefined;
  const created = Date.parse(String((read.value as KubeObject).metadata?.creationTimestamp ?? ''));
  return Number.isNaN(created) ? undefined : Date.now() - created;
}

export function trainJobActivities(env: ActivityEnv, settings: Pick<SettingsView, 'config'>) {
  /** Deletes the copy unless the refusal says to keep it, and throws the refusal of step 6. */
  async function refuse(calls: ObjectCalls, input: { trainJob: TrainJob; copy: CreatedObject }, type: ErrorType, given: readonly string[], keepCopy: boolean): Promise<never> {
    const reasons = [...given];
    if (!keepCopy) {
      const notDeleted = await deleteOwn(calls, TRAINING_RUNTIMES, input.trainJob.metadata.namespace ?? '', input.copy);
      if (notDeleted) reasons.push(notDeleted);
    }
    throw new DispatchError(type, reasons, 6);
  }

  return {
    /**
     * Step 6. Creates the TrainJob. A 409 whose object carries this attempt's token is the earlier,
     * unanswered create of this attempt: it is adopted (docs/contract.md §7; decideConflict). A
     * definite refusal deletes the runtime copy (unless another TrainJob runs on it) and throws the cause.
     * A webhook that never saw the copy within the budget (runtime-lag.ts, lagEnd) is ErrUnreachable
     * and keeps it; ErrRejected once the copy is older than timeouts.runtimeLag; and after an
     * unanswered create of this attempt (an earlier try of this activity), the TrainJob it may have
     * made, adopted, or ErrOutcomeUnknown.
     */
    async createTrainJob(input: { trainJob: TrainJob; copy: CreatedObject }): Promise<CreatedObject & { adopted: boolean }> {
      const ctx = Context.current();
      const calls = callsFor(env);
      const { name = '', namespace = '' } = input.trainJob.metadata;
      const where = objectAddress(TRAINJOBS, namespace, name);
      const token = attemptTokenOf(input.trainJob);
      const rule = conflictRule({ adopt: 'same-token', token, copyName: input.copy.name });
      const waits = createWaits();
      const outcome = await createOrAdopt(calls, TRAINJOBS, input.trainJob, rule, waits, copyLag(input.copy.name, waits.boundMs, env.requestTimeoutMs));
      if (outcome.do === 'refuse') return refuse(calls, input, outcome.type, outcome.reasons, outcome.keepCopy === true);
      if (outcome.do !== 'unseen') return { name, uid: outcome.uid, adopted: outcome.do === 'adopt' };

      const { runtimeLag } = settings.config.timeouts;
      // A failed earlier try of this activity is an unanswered call (a definite refusal is not retried): its create may have landed.
      const earlierCreateUnanswered = ctx.info.attempt > 1;
      const age = earlierCreateUnanswered ? undefined : await copyAgeMs(calls, namespace, input.copy);
      const end = lagEnd({ earlierCreateUnanswered, copyAgeMs: age, runtimeLagMs: toMillis(parseGoDuration(runtimeLag)!) });
      if (end === 'ErrRejected') {
        return refuse(calls, input, 'ErrRejected', [runtimeNeverSeen(`creating ${where}`, input.copy.name, Math.round(age! / 1000), runtimeLag, outcome.answer)], false);
      }
      const unseen = runtimeStillUnseen(`creating ${where}`, input.copy.name, outcome.denials, outcome.answer);
      // The copy stays for the retried Start: a webhook that has not seen it yet refused nothing.
      if (end === 'ErrUnreachable') throw new DispatchError('ErrUnreachable', [unseen], 6, undefined, { definite: false });
      // The TrainJob may exist behind the denials: found by name and this attempt's token, it is adopted.
      const read = await calls.get(TRAINJOBS, namespace, name);
      const found = read.answered === 'ok' ? (read.value as TrainJob) : undefined;
      if (found?.metadata?.uid && attemptTokenOf(found) === token) return { name, uid: found.metadata.uid, adopted: true };
      const maybe = `a create of this attempt went unanswered before the webhook's denials, and ${found ? 'the TrainJob of the name is not this attempt\'s' : 'no TrainJob of the name was found'} (it may still land: ask Find)`;
      throw new DispatchError('ErrOutcomeUnknown', [unseen, maybe], 6, undefined, { definite: false });
    },

    /** Step 7. Makes the TrainJob the copy's owner, so that deleting the TrainJob collects the copy. */
    async setOwner(input: { namespace: string; copy: CreatedObject; trainJob: CreatedObject }): Promise<void> {
      const owner = {
        apiVersion: Trainer.apiVersion,
        kind: Trainer.trainJobKind,
        name: input.trainJob.name,
        uid: input.trainJob.uid,
      };
      const answer = await callsFor(env).patch(TRAINING_RUNTIMES, input.namespace, input.copy.name, [
        { op: 'test', path: '/metadata/uid', value: input.copy.uid },
        { op: 'add', path: '/metadata/ownerReferences', value: [owner] },
      ]);
      if (answer.answered === 'definite') {
        const where = objectAddress(TRAINING_RUNTIMES, input.namespace, input.copy.name);
        throw new DispatchError('ErrRejected', [`owner reference could not be set on ${where}: ${describeRefusal(answer)}`], 7);
      }
    },

    /** Step 8. Reads the TrainJob back; the workflow compares it with what it wrote (pure core). */
    async readBack(input: { namespace: string; name: string }): Promise<TrainJob> {
      const answer = await callsFor(env).get(TRAINJOBS, input.namespace, input.name);
      if (answer.answered === 'definite') {
        const where = objectAddress(TRAINJOBS, input.namespace, input.name);
        // A TrainJob gone (404) says nothing of what the cluster allows: something deleted it (for
        // a probe, maybe an earlier execution of a lost workflow task), so the preflight does not
        // count it as a refusal of the start gate (errors.ts, Evidence).
        throw new DispatchError('ErrRejected', [`reading back ${where}: ${describeRefusal(answer)}`], 8, undefined, { definite: answer.status !== 404 });
      }
      const { metadata, spec } = answer.value as TrainJob;
      const { name, namespace, uid, labels, annotations, deletionTimestamp } = metadata;
      return { metadata: { name, namespace, uid, labels, annotations, deletionTimestamp }, spec };
    },
  };
}
