// A TrainJob's phase after Start (docs/contract.md §9), decided from the objects as read and
// nothing else: the TrainJob, and in Kueue mode the Workload Kueue made for it. No memory of what
// dispatch did before: two workers, or one restarted, read the same objects and decide the same.
//
// How each phase is observed:
// - Absent: no TrainJob, or one being deleted that has not completed or failed.
// - Succeeded / Failed: the TrainJob's condition `Complete` / `Failed` is True (Trainer copies
//   them from the JobSet; `Failed` with reason `DeadlineExceeded` is Trainer's own); Failed wins
//   if both are. In Kueue mode also Failed: dispatch's admission check is `Rejected` on the
//   Workload, or Kueue deactivated the Workload itself (condition `DeactivationTarget` True, or
//   spec.active false with an `Evicted` reason `DeactivatedDueTo...`) and the TrainJob is not held.
// - Held: the held annotation is "true"; in Kueue mode also a Workload whose spec.active is false
//   by someone else than Kueue (dispatch's Hold between its two writes, a Release between its two,
//   or `kueuectl stop workload`): it does not run until it is activated, which Release does.
// - Gated (never opened): plain mode, spec.suspend true; Kueue mode, dispatch's gate still in the
//   TrainJob's `kueue.x-k8s.io/admission-gated-by`. A plain TrainJob that carries the `opened`
//   annotation yet is suspended and not held (suspended by hand) reads Gated too, its reason says
//   so; an Open or a Release writes spec.suspend false again (lifecycle-plans.ts).
// - Running: spec.suspend false; in Kueue mode also a Workload whose `Admitted` is True.
// - Queued (Kueue mode only): opened, and neither admitted nor unsuspended.
import type { Config } from '../../model/config.js';
import { Annotations, Labels, LabelValues } from '../../model/constants.js';
import type { AdmissionCheckState, KubeObject, TrainJob, Workload } from '../../model/kube.js';
import {
  CheckStates,
  ConditionStatus,
  KueueReasons,
  LifecycleAnnotations,
  LifecycleAnnotationValues,
  OutcomeReasons,
  TrainJobConditions,
  WorkloadConditions,
} from '../../model/lifecycle-constants.js';
import type { Condition, Phase, TrainJobRef, TrainJobState } from '../../model/lifecycle.js';
import { isBeingDeleted } from '../start/copy-reuse.js';
import { gatesOf } from '../start/workload.js';

/** What the decisions after Start read of the configuration. */
export type LifecycleConfig = Pick<Config, 'namespace' | 'mode' | 'kueue'>;

/** The objects as read. The mode is the configuration's, so the two can never disagree. */
export interface Observed {
  /** The TrainJob of the ref's name; undefined when the read answered 404. */
  trainJob?: TrainJob;
  /** Kueue mode: the Workload labelled `kueue.x-k8s.io/job-uid=<uid>` (workloadOfTrainJob); ignored in plain mode. */
  workload?: Workload;
  config: LifecycleConfig;
}

export interface PhaseView {
  phase: Phase;
  /** Whether the TrainJob carries dispatch's held annotation with the value "true". */
  held: boolean;
  reasons: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const show = (value: unknown): string => (value === undefined ? 'absent' : JSON.stringify(value));

/** Compares strings by UTF-16 code units, the same in every locale (localeCompare is not). */
export const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** "TrainJob ml-jobs/dj-...": an object as the reasons name it. */
export function describeObject(kind: string, object: KubeObject | undefined): string {
  return `${kind} ${object?.metadata?.namespace ?? '?'}/${object?.metadata?.name ?? '?'}`;
}

/** The well-formed entries of status.conditions; anything else in the list is skipped. */
export function conditionsOf(object: KubeObject | undefined): Condition[] {
  const status = object?.status;
  if (!isRecord(status) || !Array.isArray(status.conditions)) return [];
  return status.conditions.filter(
    (c): c is Condition => isRecord(c) && typeof c.type === 'string' && typeof c.status === 'string',
  );
}

export function conditionOf(object: KubeObject | undefined, type: string): Condition | undefined {
  return conditionsOf(object).find((c) => c.type === type);
}

export function isConditionTrue(object: KubeObject | undefined, type: string): boolean {
  return conditionOf(object, type)?.status === ConditionStatus.true;
}

/** `Complete is True (AllJobsCompleted: jobset completed successfully)`. */
function showCondition(condition: Condition): string {
  const why = [condition.reason, condition.message]
    .filter((s) => typeof s === 'string' && s !== '')
    .join(': ');
  return `condition ${condition.type} is ${condition.status}${why === '' ? '' : ` (${why})`}`;
}

/** Plain mode: Open has recorded the TrainJob opened (the `opened` annotation is "true"). */
export function isOpenedMarked(trainJob: KubeObject): boolean {
  return trainJob.metadata?.annotations?.[LifecycleAnnotations.opened] === LifecycleAnnotationValues.opened;
}

export function isHeldMarked(trainJob: KubeObject): boolean {
  return trainJob.metadata?.annotations?.[LifecycleAnnotations.held] === LifecycleAnnotationValues.held;
}

const specOf = (object: KubeObject | undefined): Record<string, unknown> =>
  isRecord(object?.spec) ? object.spec : {};

/** spec.suspend is true. The CRD defaults it to false. */
export function isSuspended(trainJob: KubeObject): boolean {
  return specOf(trainJob).suspend === true;
}

/** dispatch's gate is still in the TrainJob's admission-gated-by: it was never opened (Kueue mode). */
export function hasGate(trainJob: KubeObject, gate: string): boolean {
  return gatesOf(trainJob.metadata?.annotations?.[Annotations.kueueAdmissionGatedBy]).includes(gate);
}

/**
 * The start gate's first fact (docs/contract.md §9a): the TrainJob was opened. Kueue mode: dispatch's
 * gate is gone from admission-gated-by. Plain mode: the `opened` annotation is "true"; a TrainJob
 * that is not suspended was opened too (by an Open from before the annotation existed).
 */
export function isOpened(trainJob: KubeObject, config: Pick<Config, 'mode' | 'kueue'>): boolean {
  if (config.mode === 'kueue') return !hasGate(trainJob, config.kueue.gate);
  return isOpenedMarked(trainJob) || !isSuspended(trainJob);
}

/**
 * What the caller has done to the TrainJob since Start made it: "opened", "held", "opened and
 * held", or undefined (§7). Start's compensation and a retried Start's adoption leave such a
 * TrainJob alone, and their reasons name it.
 */
export function takenOverBy(trainJob: KubeObject, config: Pick<Config, 'mode' | 'kueue'>): string | undefined {
  const what = [...(isOpened(trainJob, config) ? ['opened'] : []), ...(isHeldMarked(trainJob) ? ['held'] : [])];
  return what.length > 0 ? what.join(' and ') : undefined;
}

/** Why a TrainJob does not carry dispatch's labels (docs/contract.md §3); empty when it does. */
export function dispatchLabelProblems(trainJob: KubeObject): string[] {
  const labels = trainJob.metadata?.labels ?? {};
  const what = describeObject('TrainJob', trainJob);
  const problems: string[] = [];
  if (labels[Labels.managedBy] !== LabelValues.managedBy) {
    problems.push(
      `${what}: label ${Labels.managedBy} is ${show(labels[Labels.managedBy])}, not "${LabelValues.managedBy}"`,
    );
  }
  for (const key of [Labels.jobId, Labels.generation, Labels.submission]) {
    if (typeof labels[key] !== 'string' || labels[key] === '') {
      problems.push(`${what}: label ${key} is ${show(labels[key])}`);
    }
  }
  return problems;
}

/** spec.active is false: Kueue does not admit it, and evicts it if admitted. The CRD defaults it to true. */
export function isWorkloadInactive(workload: Workload): boolean {
  return specOf(workload).active === false;
}

/** The Workload's entry for an admission check, by name. */
export function checkStateOf(workload: Workload | undefined, name: string): AdmissionCheckState | undefined {
  const checks = workload?.status?.admissionChecks;
  return Array.isArray(checks) ? checks.find((c) => isRecord(c) && c.name === name) : undefined;
}

/**
 * The condition saying Kueue deactivated the Workload itself (not a Hold, not an operator):
 * `DeactivationTarget` True (Kueue is about to set spec.active false), or spec.active false with
 * `Evicted` True and a reason `DeactivatedDueTo<cause>`. A plain `Deactivated` is someone else's.
 */
export function kueueDeactivation(workload: Workload): Condition | undefined {
  const target = conditionOf(workload, WorkloadConditions.deactivationTarget);
  if (target?.status === ConditionStatus.true) return target;
  const evicted = conditionOf(workload, WorkloadConditions.evicted);
  if (
    isWorkloadInactive(workload) &&
    evicted?.status === ConditionStatus.true &&
    evicted.reason?.startsWith(KueueReasons.deactivatedByKueuePrefix) === true
  ) {
    return evicted;
  }
  return undefined;
}

/**
 * The Workload of a TrainJob among those listed by its job-uid label: labelled with that UID, not
 * being deleted, preferring one not Finished (Kueue may make a new one for the same job), then
 * the first by name, so every reader picks the same.
 */
export function workloadOfTrainJob(
  workloads: readonly Workload[],
  trainJobUid: string,
): Workload | undefined {
  const candidates = workloads
    .filter((w) => w.metadata?.labels?.[Labels.kueueJobUid] === trainJobUid && !isBeingDeleted(w))
    .sort((a, b) => byteOrder(a.metadata?.name ?? '', b.metadata?.name ?? ''));
  return candidates.find((w) => !isConditionTrue(w, WorkloadConditions.finished)) ?? candidates[0];
}

/**
 * The TrainJob's own Workload among those a list by its job-uid label answered: owned by the
 * TrainJob (Kueue makes it the Workload's controller), then as every reader picks
 * (workloadOfTrainJob: not being deleted, not Finished, first by name), not the first listed.
 */
export function ownWorkload(workloads: readonly Workload[], trainJobUid: string): Workload | undefined {
  const owned = workloads.filter((w) => (w.metadata?.ownerReferences ?? []).some((o) => o.uid === trainJobUid));
  return workloadOfTrainJob(owned, trainJobUid);
}

/**
 * The observed Workload when it is this TrainJob's and the mode is Kueue's; a note says why one
 * was set aside (another UID's, or being deleted).
 */
export function observedWorkload(observed: Observed): { workload?: Workload; notes: string[] } {
  const { trainJob, workload, config } = observed;
  if (config.mode !== 'kueue' || workload === undefined || trainJob === undefined) return { notes: [] };
  const what = describeObject('Workload', workload);
  const uid = workload.metadata?.labels?.[Labels.kueueJobUid];
  if (uid !== trainJob.metadata?.uid) {
    return {
      notes: [`${what} is labelled ${Labels.kueueJobUid}=${show(uid)}, not this TrainJob's UID: ignored`],
    };
  }
  if (isBeingDeleted(workload)) return { notes: [`${what} is being deleted: ignored`] };
  return { workload, notes: [] };
}

/** How a TrainJob ended, from what was read; undefined while it has not. */
export interface Terminal {
  phase: 'Succeeded' | 'Failed';
  reason: string;
  message: string;
  /** When the deciding condition or check last changed, if it says. */
  at?: string;
  /** The reason line for a TrainJobState. */
  detail: string;
}

const terminalFrom = (phase: Terminal['phase'], what: string, c: Condition): Terminal => ({
  phase,
  reason: c.reason ?? c.type,
  message: c.message ?? '',
  ...(typeof c.lastTransitionTime === 'string' ? { at: c.lastTransitionTime } : {}),
  detail: `${what}: ${showCondition(c)}`,
});

/** Whether the TrainJob has completed or failed (see the head of this file). */
export function terminalOf(observed: Observed): Terminal | undefined {
  const { trainJob, config } = observed;
  if (trainJob === undefined) return undefined;
  const what = describeObject('TrainJob', trainJob);
  for (const [type, phase] of [
    [TrainJobConditions.failed, 'Failed'],
    [TrainJobConditions.complete, 'Succeeded'],
  ] as const) {
    const c = conditionOf(trainJob, type);
    if (c?.status === ConditionStatus.true) return terminalFrom(phase, what, c);
  }
  const { workload } = observedWorkload(observed);
  if (workload === undefined) return undefined;
  const wl = describeObject('Workload', workload);
  const check = checkStateOf(workload, config.kueue.admissionCheck);
  if (check?.state === CheckStates.rejected) {
    const message = `admission check ${check.name} is ${CheckStates.rejected}${check.message ? `: ${check.message}` : ''}`;
    return {
      phase: 'Failed',
      reason: OutcomeReasons.admissionCheckRejected,
      message,
      ...(typeof check.lastTransitionTime === 'string' ? { at: check.lastTransitionTime } : {}),
      detail: `${wl}: ${message}`,
    };
  }
  const deactivation = isHeldMarked(trainJob) ? undefined : kueueDeactivation(workload);
  return deactivation === undefined
    ? undefined
    : terminalFrom('Failed', `${wl} deactivated by Kueue`, deactivation);
}

/** The phase of a TrainJob, whether it is held, and why (see the head of this file). */
export function phaseOf(observed: Observed): PhaseView {
  const { trainJob } = observed;
  if (trainJob === undefined)
    return { phase: 'Absent', held: false, reasons: ['no TrainJob: the read answered 404'] };
  const what = describeObject('TrainJob', trainJob);
  const held = isHeldMarked(trainJob);
  const { workload, notes } = observedWorkload(observed);
  const view = (phase: Phase, ...reasons: string[]): PhaseView => ({
    phase,
    held,
    reasons: [...reasons, ...notes],
  });

  const terminal = terminalOf(observed);
  if (terminal !== undefined) return view(terminal.phase, terminal.detail);
  if (isBeingDeleted(trainJob)) {
    return view(
      'Absent',
      `${what} is being deleted (deletionTimestamp ${String(trainJob.metadata.deletionTimestamp)})`,
    );
  }
  const heldReason = `${what}: annotation ${LifecycleAnnotations.held} is "${LifecycleAnnotationValues.held}"`;
  const unsuspended = !isSuspended(trainJob);

  if (observed.config.mode === 'plain') {
    if (held) {
      return view(
        'Held',
        heldReason,
        ...(unsuspended ? [`${what}: held, yet spec.suspend is not true: the Hold is not finished`] : []),
      );
    }
    if (!unsuspended) {
      return view('Gated', `${what}: spec.suspend is true and it is not held: ${isOpenedMarked(trainJob) ? `opened (annotation ${LifecycleAnnotations.opened}), yet suspended by someone else` : 'never opened'}`);
    }
    return view('Running', `${what}: spec.suspend is ${show(specOf(trainJob).suspend)}`);
  }

  const wl = describeObject('Workload', workload);
  const inactive = workload !== undefined && isWorkloadInactive(workload);
  if (held) {
    const pending =
      workload === undefined
        ? [`no Workload of this TrainJob yet: the Hold is not finished`]
        : inactive
          ? [`${wl}: spec.active is false`]
          : [`${wl}: spec.active is not false yet: the Hold is not finished`];
    return view('Held', heldReason, ...pending);
  }
  if (inactive) {
    return view(
      'Held',
      `${wl}: spec.active is false (not by Kueue) and the TrainJob is not marked held: a Release not finished, or stopped by hand`,
    );
  }
  const gate = observed.config.kueue.gate;
  if (hasGate(trainJob, gate)) {
    return view(
      'Gated',
      `${what}: annotation ${Annotations.kueueAdmissionGatedBy} holds ${gate}: never opened`,
    );
  }
  const admitted = conditionOf(workload, WorkloadConditions.admitted);
  if (admitted?.status === ConditionStatus.true) return view('Running', `${wl}: ${showCondition(admitted)}`);
  if (unsuspended) return view('Running', `${what}: spec.suspend is ${show(specOf(trainJob).suspend)}`);
  if (workload === undefined) return view('Queued', `${what}: opened; no Workload of this TrainJob yet`);
  const reserved = conditionOf(workload, WorkloadConditions.quotaReserved);
  const check = checkStateOf(workload, observed.config.kueue.admissionCheck);
  return view(
    'Queued',
    `${wl}: not admitted: ${reserved === undefined ? `no condition ${WorkloadConditions.quotaReserved}` : showCondition(reserved)}; admission check ${observed.config.kueue.admissionCheck} is ${show(check?.state)}`,
  );
}

/**
 * The TrainJobState of a ref. A TrainJob of the ref's name with another UID is not the ref's: the
 * one referred to is gone, so Absent (the operations refuse it first, lifecycle-plans.ts).
 */
export function stateOf(ref: TrainJobRef, observed: Observed): TrainJobState {
  const uid = observed.trainJob?.metadata?.uid;
  if (observed.trainJob !== undefined && uid !== ref.uid) {
    return {
      ref,
      phase: 'Absent',
      held: false,
      reasons: [
        `${describeObject('TrainJob', observed.trainJob)} has UID ${show(uid)}, not ${ref.uid}: the TrainJob referred to is gone`,
      ],
    };
  }
  return { ref, ...phaseOf(observed) };
}
