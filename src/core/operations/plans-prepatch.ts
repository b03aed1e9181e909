// The plans of Open, Hold and Release as they were before the operations became declarative
// (docs/contract.md §9a; the workflow's patch `operations-declarative`). Kept unchanged for the runs
// that began before that patch, whose histories replay them (test/histories/02-operations): do not
// change what they decide. New runs use plans.ts.
//
// Open, Hold and Release (docs/contract.md §9) as decisions: from the objects as read, either a
// refusal (ErrRejected), Absent, nothing to do (already as wanted), a wait, or the exact writes to
// make, in order, each a JSON patch whose first operations test the object's UID and
// resourceVersion. The workflow reads, plans, makes the writes in order, and reads and plans
// again, with `resumed: true` once it has written, until the plan is no longer `write` or `wait`;
// a failed test (another writer came first) is the same: read and plan again. The plans remember
// nothing, so a second worker, or an operation interrupted between two writes, finishes the same way.
//
// `resumed` is the one thing a plan is told about the past, and it comes from the workflow's own
// history: once a run has written, a TrainJob that is no longer held (Release) or has ended since
// is the answer, not a refusal. A new run of Release on a TrainJob that an earlier run released
// is refused (not held), as docs/contract.md §9 says.
//
// The writes, by mode:
// - Open: plain, spec.suspend false; Kueue, dispatch's gate out of admission-gated-by (the
//   annotation goes when no gate is left; the Workload's copy is Kueue's, never touched).
// - Hold: plain, spec.suspend true and held "true" in one patch; Kueue, held "true" on the
//   TrainJob, then the Workload's spec.active false.
// - Release: plain, spec.suspend false and held removed in one patch; Kueue, held removed, then
//   the Workload's spec.active true.
//
// Decisions docs/contract.md §9 leaves open, made here:
// - Open of a held TrainJob: Kueue mode removes the gate (the inactive Workload still holds it);
//   plain mode has nothing it could write without running it, so nothing to do (Release opens it).
// - Hold in Kueue mode with no Workload yet writes the held annotation, then waits for Kueue to
//   make the Workload (`wait`): the held annotation alone keeps dispatch's check Pending, but only
//   an inactive Workload keeps Kueue from reserving quota for it.
// - Release of a Kueue Workload made inactive by someone else (`kueuectl stop workload`) reactivates
//   it; one Kueue deactivated itself (held meanwhile) is left inactive, and the TrainJob then reads Failed.
// - A ref of another namespace than the configured one is refused: dispatch works in that one only.
import type { TrainJob } from '../../model/kube.js';
import { Annotations } from '../../model/constants.js';
import { OperationAnnotations, OperationAnnotationValues } from '../../model/constants.js';
import { OPERATION_NAMES, type Operation } from '../../contract/names.js';
import type { TrainJobRef, TrainJobState } from '../../model/operations.js';
import { describeObject } from '../objects/describe.js';
import { hasGate, removeGateOp } from '../objects/gates.js';
import { removeAnnotation, setAnnotation, setSpec } from '../objects/json-patch.js';
import { writeOf, type Change } from '../objects/planned-write.js';
import { isWorkloadInactive, kueueDeactivation } from '../objects/workloads.js';
import { isHeldMarked, isSuspended } from './facts.js';
import { dispatchLabelProblems } from './identity.js';
import { observedWorkload, type Observed } from './observed.js';
import { stateOf } from './phase.js';
import { writesOrDone, type TrainJobChange, type OperationPlan, type PlanOptions } from './plan.js';

// ---- The plans

/**
 * Why the operation may not touch what was read (ErrRejected): a ref of another namespace, a
 * TrainJob of another UID, name or namespace, or without dispatch's labels. Empty when it may.
 */
export function identityRefusalsPrePatch(op: Operation, ref: TrainJobRef, observed: Observed): string[] {
  const head = `${OPERATION_NAMES[op]} of TrainJob ${ref.namespace}/${ref.name}`;
  const reasons: string[] = [];
  if (ref.namespace !== observed.config.namespace) {
    reasons.push(`${head}: dispatch works in namespace ${observed.config.namespace} only`);
  }
  const trainJob = observed.trainJob;
  if (trainJob === undefined) return reasons;
  const meta = trainJob.metadata ?? {};
  if (meta.uid !== ref.uid) {
    reasons.push(`${head}: the TrainJob of that name has UID ${meta.uid ?? 'absent'}, not ${ref.uid}`);
  }
  if (meta.namespace !== ref.namespace || meta.name !== ref.name) {
    reasons.push(`${head}: the TrainJob read is ${describeObject('TrainJob', trainJob)}`);
  }
  return [...reasons, ...dispatchLabelProblems(trainJob).map((p) => `${head}: ${p}`)];
}

type Decide = (trainJob: TrainJob, observed: Observed, state: TrainJobState) => OperationPlan;

/** The part every operation shares: identity, Absent, and no change to a TrainJob that has ended. */
function plan(
  op: TrainJobChange,
  ref: TrainJobRef,
  observed: Observed,
  options: PlanOptions,
  decide: Decide,
): OperationPlan {
  const refusals = identityRefusalsPrePatch(op, ref, observed);
  if (refusals.length > 0) return { kind: 'refuse', reasons: refusals };
  const state = stateOf(ref, observed);
  const trainJob = observed.trainJob;
  if (trainJob === undefined || state.phase === 'Absent') return { kind: 'absent', state };
  if (state.phase === 'Succeeded' || state.phase === 'Failed') {
    if (options.resumed === true) return { kind: 'done', state };
    return {
      kind: 'refuse',
      reasons: [
        `${OPERATION_NAMES[op]} of ${describeObject('TrainJob', trainJob)}: it has ${state.phase}`,
        ...state.reasons,
      ],
    };
  }
  return decide(trainJob, observed, state);
}

/** Open: plain, spec.suspend false; Kueue, dispatch's gate out of admission-gated-by. */
export function planOpenPrePatch(ref: TrainJobRef, observed: Observed, options: PlanOptions = {}): OperationPlan {
  return plan('open', ref, observed, options, (trainJob, { config }, state) => {
    const gate = config.kueue.gate;
    if (config.mode === 'kueue') {
      const ungate: Change[] = hasGate(trainJob, gate)
        ? [
            {
              op: removeGateOp(trainJob, gate),
              summary: `remove ${gate} from ${Annotations.kueueAdmissionGatedBy}`,
            },
          ]
        : [];
      return writesOrDone(writeOf('TrainJob', trainJob, ungate), state);
    }
    // Plain: only a Gated TrainJob is opened; a held one opens at its Release.
    const open: Change[] =
      state.phase === 'Gated'
        ? [{ op: setSpec(trainJob, 'suspend', false), summary: 'spec.suspend false' }]
        : [];
    return writesOrDone(writeOf('TrainJob', trainJob, open), state);
  });
}

/** Hold: plain, spec.suspend true and held "true" in one patch; Kueue, held "true", then the Workload inactive. */
export function planHoldPrePatch(ref: TrainJobRef, observed: Observed, options: PlanOptions = {}): OperationPlan {
  return plan('hold', ref, observed, options, (trainJob, obs, state) => {
    const mark: Change[] = isHeldMarked(trainJob)
      ? []
      : [
          {
            op: setAnnotation(trainJob, OperationAnnotations.held, OperationAnnotationValues.held),
            summary: `annotation ${OperationAnnotations.held}: "${OperationAnnotationValues.held}"`,
          },
        ];
    if (obs.config.mode === 'plain') {
      const suspend: Change[] = isSuspended(trainJob)
        ? []
        : [{ op: setSpec(trainJob, 'suspend', true), summary: 'spec.suspend true' }];
      return writesOrDone(writeOf('TrainJob', trainJob, [...suspend, ...mark]), state);
    }
    const writes = writeOf('TrainJob', trainJob, mark);
    const { workload } = observedWorkload(obs);
    if (workload === undefined) {
      return writes.length > 0
        ? { kind: 'write', writes, state }
        : {
            kind: 'wait',
            reasons: ['no Workload of this TrainJob yet: Kueue makes it; its spec.active is set false then'],
            state,
          };
    }
    if (!isWorkloadInactive(workload)) {
      writes.push(
        ...writeOf('Workload', workload, [
          { op: setSpec(workload, 'active', false), summary: 'spec.active false' },
        ]),
      );
    }
    return writesOrDone(writes, state);
  });
}

/** Release: plain, spec.suspend false and held removed in one patch; Kueue, held removed, then the Workload active. */
export function planReleasePrePatch(ref: TrainJobRef, observed: Observed, options: PlanOptions = {}): OperationPlan {
  return plan('release', ref, observed, options, (trainJob, obs, state) => {
    if (state.phase !== 'Held') {
      if (options.resumed === true) return { kind: 'done', state };
      return {
        kind: 'refuse',
        reasons: [
          `Release of ${describeObject('TrainJob', trainJob)}: it is not held (it is ${state.phase})`,
          ...state.reasons,
        ],
      };
    }
    const unmark: Change[] = Object.hasOwn(trainJob.metadata.annotations ?? {}, OperationAnnotations.held)
      ? [
          {
            op: removeAnnotation(OperationAnnotations.held),
            summary: `remove annotation ${OperationAnnotations.held}`,
          },
        ]
      : [];
    if (obs.config.mode === 'plain') {
      const resume: Change[] = isSuspended(trainJob)
        ? [{ op: setSpec(trainJob, 'suspend', false), summary: 'spec.suspend false' }]
        : [];
      return writesOrDone(writeOf('TrainJob', trainJob, [...resume, ...unmark]), state);
    }
    const writes = writeOf('TrainJob', trainJob, unmark);
    const { workload } = observedWorkload(obs);
    // A Workload Kueue deactivated itself stays so: Release lifts dispatch's hold, not Kueue's decision.
    if (workload !== undefined && isWorkloadInactive(workload) && kueueDeactivation(workload) === undefined) {
      writes.push(
        ...writeOf('Workload', workload, [
          { op: setSpec(workload, 'active', true), summary: 'spec.active true' },
        ]),
      );
    }
    return writesOrDone(writes, state);
  });
}

/** The plan of an operation by its name. */
export function planOperationPrePatch(
  op: TrainJobChange,
  ref: TrainJobRef,
  observed: Observed,
  options: PlanOptions = {},
): OperationPlan {
  return { open: planOpenPrePatch, hold: planHoldPrePatch, release: planReleasePrePatch }[op](ref, observed, options);
}