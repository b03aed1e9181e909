// The MultiKueue run's cleanup and its leak audit's reads: every lifecycle's TrainJob still on the
// manager is stopped through dispatch (as a caller done with the job would), then both clusters are
// read, again every few seconds, until the audit (cluster-audit.ts) finds nothing left or its bound
// has passed. The workers keep running meanwhile: their copy collector is part of what is audited.
import { Kueue, Labels, LabelValues, Trainer } from '../../src/model/constants.js';
import type { KubeAccess } from '../../dev/harness/kube-access.js';
import { auditCleanup, type CleanupAudit, type CleanupState, type ClusterObjects } from './cluster-audit.js';
import type { FinalState, LifecycleRecord } from './history.js';
import { listObjects } from './snapshot.js';
import type { ChaosStack } from './stack.js';

/**
 * How long the clusters may take to be clean once every Stop has answered: the workers' collector
 * passes every 60 s (src/worker/copy-collector.ts) and takes a copy once the manager holds nothing
 * of its attempt; Kueue's MultiKueue deletes its worker objects when the manager's Workload goes
 * (its garbage collection every 1 m catches the rest). Two passes and some room.
 */
export const CLEANUP_BOUND_MS = 150_000;
/** How long each Stop of the cleanup is retried (the stack is whole again by then). */
const STOP_WITHIN_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readCluster(cluster: string, access: KubeAccess, namespace: string): Promise<ClusterObjects> {
  const trainer = `/apis/${Trainer.group}/${Trainer.version}/namespaces/${namespace}`;
  const [trainJobs, copies, workloads] = await Promise.all([
    listObjects(access, `${trainer}/${Trainer.trainJobPlural}`),
    listObjects(access, `${trainer}/${Trainer.trainingRuntimePlural}`, `${Labels.managedBy}=${LabelValues.managedBy}`),
    listObjects(access, `/apis/${Kueue.group}/v1beta2/namespaces/${namespace}/${Kueue.workloadPlural}`),
  ]);
  return { cluster, trainJobs, copies, workloads };
}

export interface CleanupResult {
  state: CleanupState;
  audit: CleanupAudit;
  /** TrainJobs stopped, and Stops that never answered within STOP_WITHIN_MS. */
  stopped: number;
  unstopped: string[];
  /** From the cleanup's start until the clusters were clean (or the bound passed). */
  tookMs: number;
}

export async function cleanUpAndAudit(stack: ChaosStack, lifecycles: readonly LifecycleRecord[], final: FinalState, options: { probeBoundMs: number; log: (line: string) => void }): Promise<CleanupResult> {
  const worker = stack.workerCluster;
  if (!worker) throw new Error('cleanUpAndAudit: a MultiKueue run only (--multikueue)');
  const cleanupFrom = Date.now();
  const names = new Map(lifecycles.map((l) => [l.name, l]));
  let stopped = 0;
  const unstopped: string[] = [];
  await Promise.all(
    final.trainJobs
      .filter((t) => names.has(t.name) && !t.deleting)
      .map(async (t) => {
        const client = stack.clients[names.get(t.name)!.plan.mode];
        const deadline = Date.now() + STOP_WITHIN_MS;
        for (;;) {
          try {
            await client.stop({ namespace: stack.namespace, name: t.name, uid: t.uid });
            stopped += 1;
            return;
          } catch (error) {
            if (Date.now() > deadline) {
              unstopped.push(`${t.name}: ${error instanceof Error ? error.message : String(error)}`);
              return;
            }
            await sleep(1_000);
          }
        }
      }),
  );
  options.log(`cleanup: ${stopped} TrainJob(s) stopped through dispatch${unstopped.length ? `, ${unstopped.length} Stop(s) unanswered` : ''}; auditing both clusters until clean or ${CLEANUP_BOUND_MS / 1000} s`);
  const boundMs = CLEANUP_BOUND_MS;
  for (;;) {
    const readAt = Date.now();
    const clusters = await Promise.all([readCluster('manager', stack.admin, stack.namespace), readCluster(worker.name, worker.admin, stack.namespace)]);
    const state: CleanupState = { clusters, readAt, cleanupFrom };
    const audit = auditCleanup(lifecycles, state, { probeBoundMs: options.probeBoundMs, boundMs });
    if (audit.violations.length === 0 || Date.now() - cleanupFrom > boundMs) return { state, audit, stopped, unstopped, tookMs: readAt - cleanupFrom };
    await sleep(5_000);
  }
}
