// The collector of the runtime copies Start leaves on MultiKueue's worker clusters
// (docs/multikueue.md): every interval, for each worker cluster, list dispatch's runtime copies in
// the namespace; for each candidate (no owner, older than the grace), read the manager's copy and
// TrainJob of its name, decide (src/core/start/collect-copies.ts) and delete with the UID and
// resourceVersion listed as preconditions. A cluster that does not answer is tried again at the next
// pass. It keeps no memory between passes: several workers may run it at once.
import { candidateReason, decideWorkerCopy } from '../core/start/collect-copies.js';
import { describeRefusal, KubeUnanswered } from '../kube/call.js';
import type { KubeClients, WorkerClusterClients } from '../kube/clients.js';
import { objectAddress, ObjectCalls, TRAINING_RUNTIMES, TRAINJOBS, type NamespacedKind } from '../kube/objects.js';
import { Labels, LabelValues } from '../model/constants.js';
import type { KubeObject } from '../model/kube.js';
import type { Log } from '../observability/log.js';
import { sleepUnlessAborted } from './preflight.js';

export const DEFAULT_COLLECT_INTERVAL_MS = 60_000;

export interface CopyCollectorOptions {
  namespace: string;
  manager: KubeClients;
  workerClusters: WorkerClusterClients;
  requestTimeoutMs: number;
  /** How old a copy must be before it may go (timeouts.call: a Start making it has made the manager's by then). */
  graceMs: number;
  intervalMs?: number;
  log: Log;
  now?: () => number;
}

/** What one pass did: the copies deleted, and what went wrong (a cluster unanswered, a refusal). */
export interface CollectPass {
  deleted: string[];
  problems: string[];
}

export interface CopyCollector {
  pass(): Promise<CollectPass>;
  run(signal: AbortSignal): Promise<void>;
}

type Read = { found: KubeObject | undefined } | { problem: string };

async function read(calls: ObjectCalls, kind: NamespacedKind, namespace: string, name: string): Promise<Read> {
  const answer = await calls.get(kind, namespace, name);
  if (answer.answered === 'ok') return { found: answer.value };
  if (answer.status === 404) return { found: undefined };
  return { problem: `reading ${objectAddress(kind, namespace, name)} on the manager: ${describeRefusal(answer)}` };
}

/** How old an object is by its creationTimestamp; undefined without one. */
function ageOf(object: KubeObject, nowMs: number): number | undefined {
  const created = Date.parse(String(object.metadata?.creationTimestamp ?? ''));
  return Number.isFinite(created) ? nowMs - created : undefined;
}

export function createCopyCollector(options: CopyCollectorOptions): CopyCollector {
  const { namespace, graceMs, log } = options;
  const now = options.now ?? Date.now;
  const ctx = { requestTimeoutMs: options.requestTimeoutMs };
  const manager = new ObjectCalls(options.manager, ctx);
  const selector = `${Labels.managedBy}=${LabelValues.managedBy}`;

  /** One worker cluster's pass: its problems, the copies it deleted pushed onto `deleted`. */
  async function collectOn(cluster: string, calls: ObjectCalls, deleted: string[]): Promise<string[]> {
    const listed = await calls.list(TRAINING_RUNTIMES, namespace, selector);
    if (listed.answered !== 'ok') return [`listing runtime copies: ${describeRefusal(listed)}`];
    const problems: string[] = [];
    for (const copy of listed.value.items ?? []) {
      const ageMs = ageOf(copy, now());
      if (candidateReason(copy, ageMs, graceMs) !== undefined) continue;
      const name = copy.metadata?.name ?? '';
      const [managerCopy, managerTrainJob] = [await read(manager, TRAINING_RUNTIMES, namespace, name), await read(manager, TRAINJOBS, namespace, name)];
      if ('problem' in managerCopy || 'problem' in managerTrainJob) {
        problems.push(...['problem' in managerCopy ? managerCopy.problem : [], 'problem' in managerTrainJob ? managerTrainJob.problem : []].flat());
        continue;
      }
      const decision = decideWorkerCopy({ copy, managerCopy: managerCopy.found, managerTrainJob: managerTrainJob.found, ageMs, graceMs });
      if (decision.do !== 'delete') continue;
      const answer = await calls.deleteByUid(TRAINING_RUNTIMES, namespace, name, decision.uid, decision.resourceVersion);
      const where = `${objectAddress(TRAINING_RUNTIMES, namespace, name)} on worker cluster ${cluster}`;
      // 409: it changed since it was listed (a Start adopted it, say): decided again at the next pass.
      if (answer.answered === 'ok' || answer.status === 404) deleted.push(where);
      else if (answer.status !== 409) problems.push(`deleting ${where}: ${describeRefusal(answer)}`);
    }
    return problems;
  }

  async function pass(): Promise<CollectPass> {
    const deleted: string[] = [];
    const problems = await Promise.all(
      [...options.workerClusters].map(async ([cluster, kube]) => {
        try {
          return (await collectOn(cluster, new ObjectCalls(kube, ctx), deleted)).map((p) => `worker cluster ${cluster}: ${p}`);
        } catch (error) {
          if (!(error instanceof KubeUnanswered)) throw error;
          return [`worker cluster ${cluster}: ${error.message}`];
        }
      }),
    );
    return { deleted, problems: problems.flat() };
  }

  return {
    pass,
    async run(signal) {
      while (!signal.aborted) {
        const done = await pass().catch((error: unknown) => ({ deleted: [], problems: [String(error)] }));
        if (done.deleted.length > 0) log('runtime copies collected on worker clusters', { deleted: done.deleted });
        if (done.problems.length > 0) log('runtime copies on worker clusters not collected', { problems: done.problems }, 'warn');
        await sleepUnlessAborted(options.intervalMs ?? DEFAULT_COLLECT_INTERVAL_MS, signal);
      }
    },
  };
}
