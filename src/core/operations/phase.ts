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
//   so; an Open or a Release writes spec.suspend false again (plans.ts).
// - Running: spec.suspend false; in Kueue mode also a Workload whose `Admitted` is True.
// - Queued (Kueue mode only): opened, and neither admitted nor unsuspended.
//
// With MultiKueue, a state that has not ended says first when the job's worker cluster may be lost
// (its MultiKueueCluster not Active, worker-cluster.ts); the phase is still the manager's.
import { Annotations } from '../../model/constants.js';
import { ConditionStatus, OperationAnnotations, OperationAnnotationValues, WorkloadConditions } from '../../model/constants.js';
import type { TrainJob, Workload } from '../../model/kube.js';
import type { Phase, TrainJobRef, TrainJobState } from '../../model/operations.js';
import { conditionOf, showCondition } from '../objects/conditions.js';
import { isBeingDeleted } from '../objects/deletion.js';
import { describeObject, show } from '../objects/describe.js';
import { specOf } from '../objects/fields.js';
import { hasGate } from '../objects/gates.js';
import { checkStateOf, isWorkloadInactive } from '../objects/workloads.js';
import { isHeldMarked, isOpenedMarked, isSuspended } from './facts.js';
import { clusterOf, observedWorkload, type Observed, type OperationConfig } from './observed.js';
import { terminalOf } from './terminal.js';
import { workerClusterNote } from './worker-cluster.js';

export interface PhaseView {
  phase: Phase;
  /** Whether the TrainJob carries dispatch's held annotation with the value "true". */
  held: boolean;
  reasons: string[];
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
  return observed.config.mode === 'plain'
    ? view(...plainPhase(trainJob, held))
    : view(...kueuePhase(trainJob, workload, held, observed.config));
}

/** A phase and its reasons. */
type Decided = [Phase, ...string[]];

const heldReason = (what: string) => `${what}: annotation ${OperationAnnotations.held} is "${OperationAnnotationValues.held}"`;

/** Plain mode, a TrainJob neither ended nor being deleted: Held, Gated or Running (see the head of this file). */
function plainPhase(trainJob: TrainJob, held: boolean): Decided {
  const what = describeObject('TrainJob', trainJob);
  const unsuspended = !isSuspended(trainJob);
  if (held) {
    return [
      'Held',
      heldReason(what),
      ...(unsuspended ? [`${what}: held, yet spec.suspend is not true: the Hold is not finished`] : []),
    ];
  }
  if (!unsuspended) {
    return ['Gated', `${what}: spec.suspend is true and it is not held: ${isOpenedMarked(trainJob) ? `opened (annotation ${OperationAnnotations.opened}), yet suspended by someone else` : 'never opened'}`];
  }
  return ['Running', `${what}: spec.suspend is ${show(specOf(trainJob).suspend)}`];
}

/** Kueue mode, likewise: Held, Gated, Running or Queued, from the TrainJob and its Workload (see the head of this file). */
function kueuePhase(trainJob: TrainJob, workload: Workload | undefined, held: boolean, config: OperationConfig): Decided {
  const what = describeObject('TrainJob', trainJob);
  const wl = describeObject('Workload', workload);
  const inactive = workload !== undefined && isWorkloadInactive(workload);
  if (held) {
    const pending =
      workload === undefined
        ? [`no Workload of this TrainJob yet: the Hold is not finished`]
        : inactive
          ? [`${wl}: spec.active is false`]
          : [`${wl}: spec.active is not false yet: the Hold is not finished`];
    return ['Held', heldReason(what), ...pending];
  }
  if (inactive) {
    return [
      'Held',
      `${wl}: spec.active is false (not by Kueue) and the TrainJob is not marked held: a Release not finished, or stopped by hand`,
    ];
  }
  const gate = config.kueue.gate;
  if (hasGate(trainJob, gate)) {
    return ['Gated', `${what}: annotation ${Annotations.kueueAdmissionGatedBy} holds ${gate}: never opened`];
  }
  const admitted = conditionOf(workload, WorkloadConditions.admitted);
  if (admitted?.status === ConditionStatus.true) return ['Running', `${wl}: ${showCondition(admitted)}`];
  if (!isSuspended(trainJob)) return ['Running', `${what}: spec.suspend is ${show(specOf(trainJob).suspend)}`];
  if (workload === undefined) return ['Queued', `${what}: opened; no Workload of this TrainJob yet`];
  const reserved = conditionOf(workload, WorkloadConditions.quotaReserved);
  const check = checkStateOf(workload, config.kueue.admissionCheck);
  return [
    'Queued',
    `${wl}: not admitted: ${reserved === undefined ? `no condition ${WorkloadConditions.quotaReserved}` : showCondition(reserved)}; admission check ${config.kueue.admissionCheck} is ${show(check?.state)}`,
  ];
}

/**
 * The TrainJobState of a ref. A TrainJob of the ref's name with another UID is not the ref's: the
 * one referred to is gone, so Absent (the operations refuse it first, identity.ts).
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
  const view = phaseOf(observed);
  // A worker cluster Kueue may have lost comes first: the Watch's current details show the first reason.
  const lost = view.phase === 'Succeeded' || view.phase === 'Failed' || view.phase === 'Absent' ? undefined : workerClusterNote(observed.workerCluster, observed);
  return { ref, ...view, ...(lost === undefined ? {} : { reasons: [lost, ...view.reasons] }), ...clusterOf(observed) };
}
