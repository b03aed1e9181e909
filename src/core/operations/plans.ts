// Open, Hold and Release (docs/contract.md §9, §9a) as declarative decisions: each makes one fact
// of the start gate true and answers the state. From the objects as read, a plan is a refusal
// (ErrRejected), Absent, done (the fact is already true: answer the state), a wait, or the exact
// writes to make, in order, each a JSON patch whose first operations test the object's UID and
// resourceVersion. The workflow reads, plans, writes, and reads and plans again until the plan is
// no longer `write` or `wait`. The plans remember nothing: a repeated operation, in a new run or
// after a write that landed but whose answer was lost, reads the fact true and answers the same.
//
// The two facts (facts.ts): opened (plain, the `opened` annotation, or unsuspended; Kueue, dispatch's
// gate gone from admission-gated-by) and held (the `held` annotation is "true").
// - Open makes opened true. Plain: the `opened` annotation, and spec.suspend !(opened && !held) in
//   the same patch, so a held TrainJob stays suspended and answers Held. Kueue: the gate removed (the
//   annotation goes when no gate is left; the Workload's copy is Kueue's, never touched).
// - Hold makes held true. Plain: the `held` annotation and spec.suspend true in one patch, and the
//   `opened` annotation when it was evidently opened (unsuspended), so its Release runs it again.
//   Kueue: with `workloadFirst` (the workflow's choice, patch hold-deactivates-workload-first), the
//   Workload's spec.active false, then the held annotation on the TrainJob, so that an admission
//   check controller's Ready write made after the Hold began fails (the Workload changed under it);
//   without it (runs begun before the patch), or when the Workload made inactive would read as
//   Kueue's own deactivation (Failed), the annotation first, then the Workload. Either way the
//   state between the two writes reads Held (phase.ts). With no Workload yet, the annotation,
//   then a wait for Kueue to make it.
// - Release makes held false. Plain: the annotation removed, spec.suspend !opened in the same patch,
//   so a TrainJob never opened stays suspended (Gated). Kueue: the annotation removed, then the
//   Workload's spec.active true, unless Kueue deactivated it itself.
// - A finished TrainJob (Succeeded/Failed): Open and Release answer its state; Hold is refused,
//   except when it is already held or this run has written (the answer of a Hold that landed).
// - The ref's UID decides: no TrainJob of that UID (404, or the name is another UID's) is Absent;
//   one of that UID without dispatch's labels, or a ref outside the configured namespace, is refused.
import { Annotations } from '../../model/constants.js';
import type { TrainJob, Workload } from '../../model/kube.js';
import { OperationAnnotations, OperationAnnotationValues } from '../../model/constants.js';
import type { TrainJobRef, TrainJobState } from '../../model/operations.js';
import { describeObject } from '../objects/describe.js';
import { hasGate, removeGateOp } from '../objects/gates.js';
import { pointer, removeAnnotation, setAnnotation, setSpec } from '../objects/json-patch.js';
import { writeOf, type Change } from '../objects/planned-write.js';
import { isWorkloadInactive, kueueDeactivation } from '../objects/workloads.js';
import { isHeldMarked, isOpened, isOpenedMarked, isSuspended } from './facts.js';
import { identityRefusals } from './identity.js';
import { observedWorkload, type Observed } from './observed.js';
import { stateOf } from './phase.js';
import { writesOrDone, type TrainJobChange, type OperationPlan, type PlanOptions } from './plan.js';

/** Whether the TrainJob has ended: Open and Release answer its state, Hold refuses. */
const hasEnded = (state: TrainJobState) => state.phase === 'Succeeded' || state.phase === 'Failed';

type Decide = (trainJob: TrainJob, observed: Observed, state: TrainJobState) => OperationPlan;

/** The part every operation shares: refusals (with the phase read, if any), and Absent. */
function plan(op: TrainJobChange, ref: TrainJobRef, observed: Observed, decide: Decide): OperationPlan {
  const refusals = identityRefusals(op, ref, observed);
  const state = stateOf(ref, observed);
  if (refusals.length > 0) {
    return { kind: 'refuse', reasons: refusals, ...(observed.trainJob !== undefined ? { state } : {}) };
  }
  const trainJob = observed.trainJob;
  if (trainJob === undefined || state.phase === 'Absent') return { kind: 'absent', state };
  return decide(trainJob, observed, state);
}

/** The start gate's facts a plain TrainJob is to have after the operation. */
interface PlainFacts {
  opened: boolean;
  held: boolean;
}

const annotationSummary = (key: string, value: string) => `annotation ${key}: "${value}"`;

/**
 * Plain mode's one patch: spec.suspend as !(opened && !held), then the annotations that record the
 * facts. Only what differs from what was read is written; an annotations map that is missing is
 * added whole, so two annotations never overwrite each other's `add`.
 */
function plainChanges(trainJob: TrainJob, facts: PlainFacts): Change[] {
  const annotations = trainJob.metadata.annotations ?? {};
  const suspend = !(facts.opened && !facts.held);
  const changes: Change[] =
    isSuspended(trainJob) === suspend ? [] : [{ op: setSpec(trainJob, 'suspend', suspend), summary: `spec.suspend ${suspend}` }];
  const toSet: [string, string][] = [];
  if (facts.opened && !isOpenedMarked(trainJob)) {
    toSet.push([OperationAnnotations.opened, OperationAnnotationValues.opened]);
  }
  if (facts.held && !isHeldMarked(trainJob)) toSet.push([OperationAnnotations.held, OperationAnnotationValues.held]);
  if (toSet.length > 0 && trainJob.metadata.annotations === undefined) {
    changes.push({
      op: { op: 'add', path: pointer('metadata', 'annotations'), value: Object.fromEntries(toSet) },
      summary: toSet.map(([key, value]) => annotationSummary(key, value)).join(', '),
    });
  } else {
    for (const [key, value] of toSet) changes.push({ op: setAnnotation(trainJob, key, value), summary: annotationSummary(key, value) });
  }
  if (!facts.held && Object.hasOwn(annotations, OperationAnnotations.held)) {
    changes.push({ op: removeAnnotation(OperationAnnotations.held), summary: `remove annotation ${OperationAnnotations.held}` });
  }
  return changes;
}

/** Open: makes opened true; a held TrainJob stays held (plain: suspended; Kueue: its Workload inactive). */
export function planOpen(ref: TrainJobRef, observed: Observed): OperationPlan {
  return plan('open', ref, observed, (trainJob, { config }, state) => {
    if (hasEnded(state)) return { kind: 'done', state };
    if (config.mode === 'plain') {
      return writesOrDone(writeOf('TrainJob', trainJob, plainChanges(trainJob, { opened: true, held: isHeldMarked(trainJob) })), state);
    }
    const gate = config.kueue.gate;
    const ungate: Change[] = hasGate(trainJob, gate)
      ? [{ op: removeGateOp(trainJob, gate), summary: `remove ${gate} from ${Annotations.kueueAdmissionGatedBy}` }]
      : [];
    return writesOrDone(writeOf('TrainJob', trainJob, ungate), state);
  });
}

/**
 * Whether the Workload, made inactive by a Hold before its TrainJob is marked, reads as held (not as
 * Kueue's own deactivation, which reads Failed: an `Evicted` reason `DeactivatedDueTo...` left on an
 * active Workload). When it would not, the Hold marks the TrainJob first, as before the patch.
 */
function readsHeldOnceInactive(workload: Workload): boolean {
  return kueueDeactivation({ ...workload, spec: { ...workload.spec, active: false } }) === undefined;
}

/**
 * Hold: makes held true. Plain: one patch; Kueue: the held annotation and the Workload inactive, the
 * Workload first when `options.workloadFirst` (see the head of this file).
 */
export function planHold(ref: TrainJobRef, observed: Observed, options: PlanOptions = {}): OperationPlan {
  return plan('hold', ref, observed, (trainJob, obs, state) => {
    if (hasEnded(state)) {
      if (options.resumed === true || isHeldMarked(trainJob)) return { kind: 'done', state };
      return {
        kind: 'refuse',
        reasons: [`Hold of ${describeObject('TrainJob', trainJob)}: it has ${state.phase}: a finished TrainJob cannot be held`, ...state.reasons],
        state,
      };
    }
    if (obs.config.mode === 'plain') {
      return writesOrDone(writeOf('TrainJob', trainJob, plainChanges(trainJob, { opened: isOpened(trainJob, obs.config), held: true })), state);
    }
    const mark: Change[] = isHeldMarked(trainJob)
      ? []
      : [
          {
            op: setAnnotation(trainJob, OperationAnnotations.held, OperationAnnotationValues.held),
            summary: annotationSummary(OperationAnnotations.held, OperationAnnotationValues.held),
          },
        ];
    const marking = writeOf('TrainJob', trainJob, mark);
    const { workload } = observedWorkload(obs);
    if (workload === undefined) {
      return marking.length > 0
        ? { kind: 'write', writes: marking, state }
        : { kind: 'wait', reasons: ['no Workload of this TrainJob yet: Kueue makes it; its spec.active is set false then'], state };
    }
    const deactivation = isWorkloadInactive(workload)
      ? []
      : writeOf('Workload', workload, [{ op: setSpec(workload, 'active', false), summary: 'spec.active false' }]);
    const workloadFirst = options.workloadFirst === true && readsHeldOnceInactive(workload);
    return writesOrDone(workloadFirst ? [...deactivation, ...marking] : [...marking, ...deactivation], state);
  });
}

/** Release: makes held false; a TrainJob never opened returns to Gated. */
export function planRelease(ref: TrainJobRef, observed: Observed): OperationPlan {
  return plan('release', ref, observed, (trainJob, obs, state) => {
    if (hasEnded(state)) return { kind: 'done', state };
    if (obs.config.mode === 'plain') {
      return writesOrDone(writeOf('TrainJob', trainJob, plainChanges(trainJob, { opened: isOpened(trainJob, obs.config), held: false })), state);
    }
    const unmark: Change[] = Object.hasOwn(trainJob.metadata.annotations ?? {}, OperationAnnotations.held)
      ? [{ op: removeAnnotation(OperationAnnotations.held), summary: `remove annotation ${OperationAnnotations.held}` }]
      : [];
    const writes = writeOf('TrainJob', trainJob, unmark);
    const { workload } = observedWorkload(obs);
    // A Workload Kueue deactivated itself stays so: Release lifts dispatch's hold, not Kueue's decision.
    if (workload !== undefined && isWorkloadInactive(workload) && kueueDeactivation(workload) === undefined) {
      writes.push(...writeOf('Workload', workload, [{ op: setSpec(workload, 'active', true), summary: 'spec.active true' }]));
    }
    return writesOrDone(writes, state);
  });
}

/** The plan of an operation by its name. */
export function planOperation(op: TrainJobChange, ref: TrainJobRef, observed: Observed, options: PlanOptions = {}): OperationPlan {
  if (op === 'open') return planOpen(ref, observed);
  if (op === 'hold') return planHold(ref, observed, options);
  return planRelease(ref, observed);
}
