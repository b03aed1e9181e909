// The admission check controller's decisions (Kueue mode, docs/contract.md §9), and Watch's outcome.
// Like Kueue's own check controllers, it keeps no memory: each pass reads the AdmissionCheck, the
// namespace's Workloads and TrainJobs, and decides from them alone. Every write tests the object's
// UID and resourceVersion and the entry it changes, so two controllers running at once, or one
// restarted, make each write at most once and never undo each other's.
//
// It only ever sets dispatch's check `Ready`, never `Retry` or `Rejected`: a `Retry` would requeue
// the Workload at once and hold quota for a job that must not run. A held TrainJob's Workload is
// inactive and reserves no quota; should one be seen reserved anyway (between Hold's two writes),
// the held annotation keeps it Pending.
import type { TrainJob, Workload } from '../../model/kube.js';
import { Labels, Trainer } from '../../model/constants.js';
import {
  CheckStates,
  ConditionStatus,
  DispatchAdmissionCheck,
  OutcomeReasons,
  TrainJobConditions,
  WorkloadConditions,
} from '../../model/lifecycle-constants.js';
import type {
  AdmissionCheck,
  Condition,
  ContainerTerminated,
  JsonPatchOp,
  Outcome,
  Pod,
  TrainJobRef,
} from '../../model/lifecycle.js';
import { isBeingDeleted } from '../start/copy-reuse.js';
import { pointer, preconditions, type PlannedWrite } from '../operations/plans.js';
import {
  byteOrder,
  conditionsOf,
  describeObject,
  dispatchLabelProblems,
  isConditionTrue,
  isHeldMarked,
  isWorkloadInactive,
  stateOf,
  terminalOf,
  type LifecycleConfig,
  type Observed,
} from '../operations/phase.js';

/** A decision of the controller: a write to make, or why there is none. */
export type ControllerDecision =
  { action: 'none'; reason: string } | { action: 'patch'; write: PlannedWrite };

/**
 * Keeps dispatch's AdmissionCheck `Active: True` (reason `Ready`): a patch of its status when the
 * condition is not so already (or was set for an older generation), none otherwise. An
 * AdmissionCheck of another name or controller is not dispatch's, and is left alone.
 * `now` (RFC 3339) becomes the condition's lastTransitionTime when its status changes.
 */
export function admissionCheckActivePatch(
  check: AdmissionCheck,
  config: LifecycleConfig,
  now: string,
): ControllerDecision {
  const name = check.metadata?.name;
  const what = `${DispatchAdmissionCheck.kind} ${name ?? '?'}`;
  if (name !== config.kueue.admissionCheck) {
    return { action: 'none', reason: `${what}: not kueue.admissionCheck (${config.kueue.admissionCheck})` };
  }
  const controller = check.spec?.controllerName;
  if (controller !== DispatchAdmissionCheck.controllerName) {
    return {
      action: 'none',
      reason: `${what}: spec.controllerName is ${JSON.stringify(controller)}, not ${DispatchAdmissionCheck.controllerName}: not dispatch's to keep active`,
    };
  }
  const generation = typeof check.metadata?.generation === 'number' ? check.metadata.generation : undefined;
  const conditions = conditionsOf(check);
  const index = conditions.findIndex((c) => c.type === DispatchAdmissionCheck.activeCondition);
  const current = conditions[index];
  if (
    current?.status === ConditionStatus.true &&
    current.reason === DispatchAdmissionCheck.activeReason &&
    (generation === undefined || current.observedGeneration === generation)
  ) {
    return { action: 'none', reason: `${what}: already ${DispatchAdmissionCheck.activeCondition}` };
  }
  const condition: Condition = {
    type: DispatchAdmissionCheck.activeCondition,
    status: ConditionStatus.true,
    reason: DispatchAdmissionCheck.activeReason,
    message: DispatchAdmissionCheck.activeMessage,
    lastTransitionTime:
      current?.status === ConditionStatus.true && typeof current.lastTransitionTime === 'string'
        ? current.lastTransitionTime
        : now,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  // conditionsOf skips malformed entries, so its indexes are the list's only when none was skipped;
  // otherwise the list is written whole, the well-formed conditions kept.
  const raw = check.status?.conditions;
  const wellFormed = Array.isArray(raw) && raw.length === conditions.length;
  let ops: JsonPatchOp[];
  if (typeof check.status !== 'object' || check.status === null) {
    ops = [{ op: 'add', path: pointer('status'), value: { conditions: [condition] } }];
  } else if (!wellFormed) {
    ops = [
      {
        op: 'add',
        path: pointer('status', 'conditions'),
        value: [...conditions.filter((c) => c.type !== condition.type), condition],
      },
    ];
  } else if (index < 0) {
    ops = [{ op: 'add', path: pointer('status', 'conditions', '-'), value: condition }];
  } else {
    ops = [
      { op: 'test', path: pointer('status', 'conditions', index, 'type'), value: condition.type },
      { op: 'replace', path: pointer('status', 'conditions', index), value: condition },
    ];
  }
  return {
    action: 'patch',
    write: {
      kind: 'AdmissionCheck',
      name,
      uid: check.metadata?.uid ?? '',
      subresource: 'status',
      patch: [...preconditions(check), ...ops],
      summary: `${what}: condition ${DispatchAdmissionCheck.activeCondition} True (${DispatchAdmissionCheck.activeReason})`,
    },
  };
}

/**
 * Whether dispatch's check on one Workload is to be set `Ready`, and the patch that does it:
 * the Workload is in the configured namespace and not being deleted, active, not finished, lists
 * the check as `Pending`, has `QuotaReserved: True`, and its TrainJob (by the job-uid label)
 * carries dispatch's labels, is not held and has not ended. Anything else: none, and why.
 */
export function readyDecision(
  workload: Workload,
  trainJob: TrainJob | undefined,
  config: LifecycleConfig,
  now: string,
): ControllerDecision {
  const what = describeObject('Workload', workload);
  const none = (why: string): ControllerDecision => ({ action: 'none', reason: `${what}: ${why}` });
  const checkName = config.kueue.admissionCheck;
  if (workload.metadata?.namespace !== config.namespace) return none(`not in namespace ${config.namespace}`);
  if (isBeingDeleted(workload)) return none('being deleted');
  const checks = Array.isArray(workload.status?.admissionChecks) ? workload.status.admissionChecks : [];
  const index = checks.findIndex((c) => typeof c === 'object' && c !== null && c.name === checkName);
  const entry = checks[index];
  if (entry === undefined) return none(`does not list admission check ${checkName}`);
  if (entry.state !== CheckStates.pending) {
    return none(`admission check ${checkName} is ${JSON.stringify(entry.state)}, not ${CheckStates.pending}`);
  }
  if (!isConditionTrue(workload, WorkloadConditions.quotaReserved)) {
    return none(`condition ${WorkloadConditions.quotaReserved} is not True`);
  }
  if (isWorkloadInactive(workload)) return none('spec.active is false');
  if (isConditionTrue(workload, WorkloadConditions.finished)) {
    return none(`condition ${WorkloadConditions.finished} is True`);
  }

  const uid = workload.metadata?.labels?.[Labels.kueueJobUid];
  if (trainJob === undefined || uid === undefined || trainJob.metadata?.uid !== uid) {
    return none(`no TrainJob of UID ${JSON.stringify(uid)} was read`);
  }
  const job = describeObject('TrainJob', trainJob);
  const labels = dispatchLabelProblems(trainJob);
  if (labels.length > 0) return none(labels.join('; '));
  if (isHeldMarked(trainJob)) return none(`${job} is held`);
  if (isBeingDeleted(trainJob)) return none(`${job} is being deleted`);
  for (const type of [TrainJobConditions.complete, TrainJobConditions.failed]) {
    if (isConditionTrue(trainJob, type)) return none(`${job}: condition ${type} is True`);
  }

  const ready = {
    ...entry,
    state: CheckStates.ready,
    message: `${job} carries dispatch's labels and is not held`,
    lastTransitionTime: now,
  };
  const at = (...rest: string[]) => pointer('status', 'admissionChecks', index, ...rest);
  return {
    action: 'patch',
    write: {
      kind: 'Workload',
      namespace: config.namespace,
      name: workload.metadata?.name ?? '',
      uid: workload.metadata?.uid ?? '',
      subresource: 'status',
      patch: [
        ...preconditions(workload),
        { op: 'test', path: at('name'), value: checkName },
        { op: 'test', path: at('state'), value: CheckStates.pending },
        { op: 'replace', path: at(), value: ready },
      ],
      summary: `${what}: admission check ${checkName} ${CheckStates.ready}`,
    },
  };
}

/** The TrainJobs read, by UID, for workloadsToMarkReady. */
export function trainJobsByUid(trainJobs: readonly TrainJob[]): Record<string, TrainJob> {
  return Object.fromEntries(trainJobs.flatMap((t) => (t.metadata?.uid ? [[t.metadata.uid, t]] : [])));
}

/** The status patches of one pass of the controller over the namespace's Workloads, in their order. */
export function workloadsToMarkReady(
  workloads: readonly Workload[],
  trainJobs: Readonly<Record<string, TrainJob>>,
  config: LifecycleConfig,
  now: string,
): PlannedWrite[] {
  return workloads.flatMap((workload) => {
    const uid = workload.metadata?.labels?.[Labels.kueueJobUid];
    const decision = readyDecision(workload, uid === undefined ? undefined : trainJobs[uid], config, now);
    return decision.action === 'patch' ? [decision.write] : [];
  });
}

// ---- Watch

interface Termination {
  pod: string;
  terminated: ContainerTerminated;
}

/**
 * The exit code of the first `node` container, among the TrainJob's pods (its job-id and
 * submission labels, docs/contract.md §4), that terminated non-zero: the earliest by finishedAt
 * (one without comes last), then by pod name. A container's earlier run (lastState) counts too.
 */
export function exitCodeOf(trainJob: TrainJob, pods: readonly Pod[]): number | undefined {
  const labels = trainJob.metadata?.labels ?? {};
  const jobId = labels[Labels.jobId];
  const submission = labels[Labels.submission];
  if (jobId === undefined || submission === undefined) return undefined;
  const ended: Termination[] = pods
    .filter(
      (p) =>
        p.metadata?.labels?.[Labels.jobId] === jobId &&
        p.metadata?.labels?.[Labels.submission] === submission,
    )
    .flatMap((p) =>
      (Array.isArray(p.status?.containerStatuses) ? p.status.containerStatuses : [])
        .filter((c) => c?.name === Trainer.nodeContainer)
        .flatMap((c) => [c.state?.terminated, c.lastState?.terminated])
        .filter((t): t is ContainerTerminated => Number.isInteger(t?.exitCode) && t?.exitCode !== 0)
        .map((terminated) => ({ pod: p.metadata?.name ?? '', terminated })),
    );
  const key = (t: Termination) => t.terminated.finishedAt ?? '\uffff';
  // Byte order, not the locale's: every worker sorts alike. Kubernetes writes these times to the second.
  ended.sort((a, b) => byteOrder(key(a), key(b)) || byteOrder(a.pod, b.pod));
  return ended[0]?.terminated.exitCode;
}

export interface WatchObservation extends Observed {
  /** The pods listed by the TrainJob's job-id label. */
  pods: readonly Pod[];
  /** When this was read (RFC 3339): an Absent outcome's finishedAt, and that of a condition without a time. */
  observedAt: string;
}

/**
 * Watch's answer once the TrainJob has ended (the phases Succeeded, Failed, Absent of phaseOf,
 * with the deciding condition's reason, message and time), or undefined while it has not. The
 * exit code is given for Failed only.
 */
export function watchOutcome(ref: TrainJobRef, observation: WatchObservation): Outcome | undefined {
  const state = stateOf(ref, observation);
  if (state.phase === 'Absent') {
    return {
      ref,
      phase: 'Absent',
      reason: OutcomeReasons.absent,
      message: state.reasons.join('; '),
      finishedAt: observation.observedAt,
    };
  }
  const terminal = terminalOf(observation);
  if (terminal === undefined || observation.trainJob === undefined) return undefined;
  const exitCode =
    terminal.phase === 'Failed' ? exitCodeOf(observation.trainJob, observation.pods) : undefined;
  return {
    ref,
    phase: terminal.phase,
    reason: terminal.reason,
    message: terminal.message,
    ...(exitCode !== undefined ? { exitCode } : {}),
    finishedAt: terminal.at ?? observation.observedAt,
  };
}
