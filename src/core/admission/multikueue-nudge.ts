// MultiKueue (docs/multikueue.md, "A Workload MultiKueue left unnominated"): Kueue v0.19.2's
// MultiKueue reconciles a Workload only when that Workload changes, and nominates only the worker
// clusters it is connected to at that moment (admissionchecks/multikueue/workload.go,
// nominateAndSynchronizeWorkers: AllAtOnce nominates the connected remotes; nothing is requeued
// when none is). A Workload whose last change (most often dispatch's own `Ready`) came while the
// worker clusters were disconnected (an API server restart, a network cut) is then left with
// MultiKueue's check `Pending`, no nominated cluster, forever: its reconnection requeues nothing.
// The chaos run met it twice in a row (the worker's API server restarted as the first Starts were
// admitted; kubernetes-sigs/kueue#10428 discusses the missing reconciles).
//
// dispatch owns one entry of that Workload's status: its check's. So the admission check controller
// writes that entry again, still `Ready`, with a message saying why and a new lastTransitionTime:
// a change of the Workload, which makes MultiKueue reconcile it and nominate the clusters connected
// by then. The new lastTransitionTime is also the rate limit: the next write comes no sooner than
// NUDGE_AFTER_MS later, with no memory in the controller.
import type { TrainJob, Workload } from '../../model/kube.js';
import { CheckStates, WorkloadConditions } from '../../model/constants.js';
import { isConditionTrue } from '../objects/conditions.js';
import { isBeingDeleted } from '../objects/deletion.js';
import { describeObject } from '../objects/describe.js';
import { isRecord } from '../objects/fields.js';
import { epochMillisOf } from '../objects/timestamps.js';
import { checkStateOf, isWorkloadInactive } from '../objects/workloads.js';
import type { OperationConfig } from '../operations/observed.js';
import { workerClustersOf } from '../start/worker-copies.js';
import { checkStateWrite, type ControllerDecision } from './decision.js';
import { candidatesOf, trainJobProblem, type Candidate, type PassRead } from './workload-ready.js';

/**
 * How long a Workload may wait, with dispatch's check Ready, for MultiKueue to nominate a worker
 * cluster before the check is written again. MultiKueue nominates within a second when connected;
 * its reconnection after a worker's API server is back took 5-15 s in the chaos runs.
 */
export const NUDGE_AFTER_MS = 15_000;

/** Why the Workload is not one MultiKueue left unnominated, its own state alone; undefined when it is. */
function unnominatedProblem(workload: Workload, config: OperationConfig, now: string): string | undefined {
  const checkName = config.kueue.admissionCheck;
  if (workerClustersOf(config).length === 0) return 'no worker clusters are configured (kueue.multiKueue)';
  if (workload.metadata?.namespace !== config.namespace) return `not in namespace ${config.namespace}`;
  if (isBeingDeleted(workload)) return 'being deleted';
  if (isWorkloadInactive(workload)) return 'spec.active is false';
  if (!isConditionTrue(workload, WorkloadConditions.quotaReserved)) return `condition ${WorkloadConditions.quotaReserved} is not True`;
  for (const type of [WorkloadConditions.admitted, WorkloadConditions.finished]) {
    if (isConditionTrue(workload, type)) return `condition ${type} is True`;
  }
  const status = workload.status ?? {};
  if (status.clusterName !== undefined) return `status.clusterName is ${JSON.stringify(status.clusterName)}`;
  const nominated = status.nominatedClusterNames;
  if (Array.isArray(nominated) && nominated.length > 0) return `MultiKueue nominated ${JSON.stringify(nominated)}`;
  const entry = checkStateOf(workload, checkName);
  if (entry?.state !== CheckStates.ready) return `admission check ${checkName} is ${JSON.stringify(entry?.state)}, not ${CheckStates.ready}`;
  const others = (status.admissionChecks ?? []).filter((c) => isRecord(c) && c.name !== checkName);
  if (!others.some((c) => c.state === CheckStates.pending)) return 'no other admission check is Pending';
  const since = epochMillisOf(entry.lastTransitionTime);
  const at = epochMillisOf(now);
  if (since === undefined || at === undefined || !(at - since >= NUDGE_AFTER_MS)) return `admission check ${checkName} is Ready since ${String(entry.lastTransitionTime)}, under ${NUDGE_AFTER_MS / 1000} s`;
  return undefined;
}

/**
 * Whether dispatch's check on the Workload is to be written again (still Ready) for MultiKueue to
 * reconcile it: worker clusters are configured; the Workload is active, has its quota reserved, is
 * neither admitted nor finished, has no cluster name and no nominated cluster; dispatch's check is
 * Ready for NUDGE_AFTER_MS or more while another check (MultiKueue's) is Pending; and its TrainJob
 * may run (as for readyDecision). Anything else: none, and why.
 */
export function nudgeDecision(workload: Workload, trainJob: TrainJob | undefined, config: OperationConfig, now: string): ControllerDecision {
  const problem = unnominatedProblem(workload, config, now) ?? trainJobProblem(workload, trainJob);
  if (problem !== undefined) return { action: 'none', reason: `${describeObject('Workload', workload)}: ${problem}` };
  const since = String(checkStateOf(workload, config.kueue.admissionCheck)?.lastTransitionTime);
  const write = checkStateWrite(workload, config, now, {
    from: CheckStates.ready,
    to: CheckStates.ready,
    message: `${describeObject('TrainJob', trainJob)} carries dispatch's labels and is not held; written again at ${now}: MultiKueue had nominated no worker cluster since this check was Ready at ${since} (it reconciles a Workload only when it changes)`,
  });
  return { action: 'patch', write: { ...write, summary: `${write.summary} again (MultiKueue had nominated no worker cluster since ${since})` } };
}

/** The Workloads nudgeDecision writes again, with their TrainJob as listed; each is decided again on a new read. */
export const nudgeCandidates = (...read: PassRead): Candidate[] => candidatesOf(nudgeDecision, ...read);
