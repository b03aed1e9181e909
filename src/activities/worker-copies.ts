// The runtime copy on MultiKueue's worker clusters (docs/contract.md §11, docs/multikueue.md), for
// step 5 and Start's undo: the same copy as the manager's (same name, spec, labels and annotations)
// made on every worker cluster of the Start's configuration, each through the worker's clients for
// that cluster, and undone there by UID (step 5) or by this attempt's token (the undo).
import { Context } from '@temporalio/activity';
import { Annotations } from '../model/constants.js';
import { DispatchError } from '../model/errors.js';
import type { Config, Mode } from '../model/config.js';
import type { KubeObject, TrainerRuntime } from '../model/kube.js';
import { conflictRule } from '../core/start/create-conflict.js';
import { decideCopyUndo } from '../core/start/undo-plan.js';
import { judgeWorkerCopies, onWorker, workerClustersOf, workerWindow, type CopyToUndo, type ManagerCopy, type WorkerCopyAnswer } from '../core/start/worker-copies.js';
import { KubeUnanswered } from '../kube/call.js';
import { createOnClusters, type ClusterCalls } from '../kube/create-on-clusters.js';
import { deleteAsDecided } from '../kube/delete-decided.js';
import { objectAddress, ObjectCalls, TRAINING_RUNTIMES } from '../kube/objects.js';
import { callContext, createWaits, type ActivityEnv } from './context.js';

/** What names the worker clusters of a Start: its mode and Kueue configuration, as step 5 and the undo are given them. */
export interface WorkerClustersInput {
  mode?: Mode;
  kueue?: Config['kueue'];
}

/** A worker cluster the Start names and this worker has no clients for (its configuration names no such cluster). */
const NO_CLIENT = 'this worker has no clients for it: its configuration (kueue.multiKueue) names no such worker cluster';

/**
 * The calls on each worker cluster the Start names, each request bounded by `requestTimeoutMs`;
 * the clusters this worker cannot reach, apart.
 */
function workerCalls(env: ActivityEnv, input: WorkerClustersInput, requestTimeoutMs = env.requestTimeoutMs): { reached: ClusterCalls[]; missing: string[] } {
  const reached: ClusterCalls[] = [];
  const missing: string[] = [];
  const ctx = { ...callContext(env), requestTimeoutMs };
  for (const { name } of workerClustersOf(input)) {
    const kube = env.workerClusters?.get(name);
    if (kube) reached.push({ cluster: name, calls: new ObjectCalls(kube, ctx) });
    else missing.push(name);
  }
  return { reached, missing };
}

const tokenOf = (copy: KubeObject) => copy.metadata?.annotations?.[Annotations.attemptToken] ?? '';

/**
 * Step 5 on the worker clusters, after the manager's copy (`manager`) was made: the copy made, or
 * adopted when it carries this attempt's token, has no owner and the same spec, on every worker
 * cluster at once. A cluster that has not answered two thirds into the attempt's bound
 * (workerWindow; `startedAt`: when this step began), or that refuses, fails the step: this attempt's copies are undone on every cluster
 * that answers (by UID), and the step answers ErrUnreachable (none refused) or the refusal. Nothing
 * to do without MultiKueue.
 */
export async function copyToWorkerClusters(env: ActivityEnv, input: WorkerClustersInput & { copy: TrainerRuntime }, manager: ManagerCopy, startedAt: number): Promise<void> {
  if (workerClustersOf(input).length === 0) return;
  const waits = createWaits();
  // The attempt's start as the worker scheduled it; a fold of steps 2 and 5 began before this step did.
  const scheduled = Context.current().info.currentAttemptScheduledTimestampMs;
  const attemptStartMs = Number.isFinite(scheduled) && scheduled > 0 ? Math.min(scheduled, startedAt) : startedAt;
  const { deadline, requestTimeoutMs } = workerWindow({ boundMs: waits.boundMs, attemptStartMs, nowMs: Date.now() }, env.requestTimeoutMs);
  const { reached, missing } = workerCalls(env, input, requestTimeoutMs);
  const token = tokenOf(input.copy);
  const rule = conflictRule({ adopt: 'unowned-same-spec', wanted: input.copy, token });
  const answers: WorkerCopyAnswer[] = [
    ...(await createOnClusters(reached, TRAINING_RUNTIMES, input.copy, rule, { ...waits, deadline })),
    ...missing.map((cluster) => ({ cluster, do: 'unanswered' as const, reason: NO_CLIENT })),
  ];
  const verdict = judgeWorkerCopies(manager, answers);
  if (verdict.ok) return;
  const problems = await undoCopies(env, input, verdict.undo, reached);
  throw new DispatchError(verdict.type, [...verdict.reasons, ...problems], 5);
}

/** Deletes each copy by its UID (only while it has no owner); what could not be deleted, as reasons. */
async function undoCopies(env: ActivityEnv, input: { copy: TrainerRuntime }, undo: readonly CopyToUndo[], workers: readonly ClusterCalls[]): Promise<string[]> {
  const namespace = input.copy.metadata?.namespace ?? '';
  const name = input.copy.metadata?.name ?? '';
  const token = tokenOf(input.copy);
  const manager = new ObjectCalls(env.kube, callContext(env));
  const problems = await Promise.all(
    undo.map(async ({ cluster, uid }) => {
      const calls = cluster === undefined ? manager : workers.find((w) => w.cluster === cluster)?.calls;
      if (!calls) return [];
      const where = `${objectAddress(TRAINING_RUNTIMES, namespace, name)}${cluster === undefined ? '' : ` on worker cluster ${cluster}`}`;
      try {
        const outcome = await deleteAsDecided(calls, TRAINING_RUNTIMES, namespace, name, (found) => decideCopyUndo(found, { token, knownUid: uid, trainJobLeft: false }));
        return outcome.do === 'problem' ? [`${where} was not undone: ${outcome.reason}`] : [];
      } catch (error) {
        if (error instanceof KubeUnanswered) return [`${where} was not undone: ${error.message}`];
        throw error;
      }
    }),
  );
  return problems.flat();
}

/**
 * Start's undo on the worker clusters: each one's copy of this attempt (carrying its token, with no
 * owner) is deleted, unless the TrainJob was left to the caller (it may run on any of them). A
 * worker cluster that does not answer, or refuses, fails nothing: the manager's TrainJob is what
 * the undo answers for, and a copy left on a worker is collected once no manager copy of its
 * attempt is left (collect-copies.ts). Answers what was deleted.
 */
export async function undoOnWorkerClusters(env: ActivityEnv, input: WorkerClustersInput & { namespace: string; name: string; token: string; trainJobLeft: boolean }): Promise<string[]> {
  if (input.trainJobLeft) return [];
  const { reached, missing } = workerCalls(env, input);
  const { namespace, name, token } = input;
  const notes: string[] = missing.map((cluster) => onWorker(cluster, NO_CLIENT));
  const deleted = await Promise.all(
    reached.map(async ({ cluster, calls }) => {
      try {
        const outcome = await deleteAsDecided(calls, TRAINING_RUNTIMES, namespace, name, (found) => decideCopyUndo(found, { token, trainJobLeft: false }));
        if (outcome.do === 'delete') return [`${objectAddress(TRAINING_RUNTIMES, namespace, name)} on worker cluster ${cluster}`];
        if (outcome.do === 'problem') notes.push(onWorker(cluster, outcome.reason));
      } catch (error) {
        if (!(error instanceof KubeUnanswered)) throw error;
        notes.push(onWorker(cluster, error.message));
      }
      return [];
    }),
  );
  if (notes.length > 0) {
    Context.current().log.warn('runtime copies left on worker clusters for the collector', { namespace, name, reasons: notes });
  }
  return deleted.flat();
}

