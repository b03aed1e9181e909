// The names the operations after Start read and write (docs/contract.md §9): dispatch's held
// annotation, the workflow types and ids, and the condition types, reasons and check states of
// Trainer v2.3.0, JobSet v0.12.0 and Kueue v0.19.2 that decide a TrainJob's phase. Kept apart
// from constants.ts, in its style: no string literal of these is repeated in code.
import { DISPATCH_DOMAIN } from './constants.js';
import { OPERATIONS, WorkflowTypes, type Operation, type WorkflowType } from './workflows.js';

export const LifecycleAnnotations = {
  /** Set by Hold, removed by Release. */
  held: `${DISPATCH_DOMAIN}/held`,
  /** Plain mode: set by Open, never removed (docs/contract.md §9a). */
  opened: `${DISPATCH_DOMAIN}/opened`,
} as const;

export const LifecycleAnnotationValues = {
  held: 'true',
  opened: 'true',
} as const;

/** The operations after Start (workflows.ts), under the names src/core still uses. */
export const LIFECYCLE_OPERATIONS = OPERATIONS;
export type LifecycleOperation = Operation;

/** The workflow type of each operation (workflows.ts), under the name src/core still uses. */
export const LifecycleWorkflowTypes: Record<Operation, WorkflowType> = WorkflowTypes;

/** A TrainJobState's phase. */
export const PHASES = ['Gated', 'Queued', 'Held', 'Running', 'Succeeded', 'Failed', 'Absent'] as const;
/** An Outcome's phase: the phases a TrainJob ends in. */
export const OUTCOME_PHASES = ['Succeeded', 'Failed', 'Absent'] as const;

/** metav1.Condition's status values. */
export const ConditionStatus = {
  true: 'True',
  false: 'False',
  unknown: 'Unknown',
} as const;

/** A TrainJob's condition types (Trainer v2.3.0, trainjob_types.go). */
export const TrainJobConditions = {
  complete: 'Complete',
  failed: 'Failed',
  suspended: 'Suspended',
} as const;

/** A Workload's condition types (Kueue v0.19.2, apis/kueue/v1beta2/workload_types.go). */
export const WorkloadConditions = {
  quotaReserved: 'QuotaReserved',
  admitted: 'Admitted',
  evicted: 'Evicted',
  finished: 'Finished',
  /** Set by Kueue before it deactivates a Workload itself; removed once it has. */
  deactivationTarget: 'DeactivationTarget',
} as const;

export const KueueReasons = {
  /** The Evicted reason when spec.active was set false by someone else than Kueue. */
  deactivated: 'Deactivated',
  /**
   * The prefix of the Evicted reason when Kueue deactivated the Workload itself
   * (`DeactivatedDueTo<cause>`, e.g. `DeactivatedDueToRequeuingLimitExceeded`): pkg/workload/evict.
   */
  deactivatedByKueuePrefix: 'DeactivatedDueTo',
} as const;

/** A Workload's admission check states (Kueue v0.19.2, admissioncheck_types.go). */
export const CheckStates = {
  pending: 'Pending',
  ready: 'Ready',
  retry: 'Retry',
  rejected: 'Rejected',
} as const;

/** dispatch's AdmissionCheck (docs/contract.md §9). */
export const DispatchAdmissionCheck = {
  kind: 'AdmissionCheck',
  plural: 'admissionchecks',
  controllerName: `${DISPATCH_DOMAIN}/admission-check`,
  activeCondition: 'Active',
  activeReason: 'Ready',
  activeMessage: 'dispatch-kubeflow runs this admission check controller',
} as const;

/** The reason of an Outcome that no condition names. */
export const OutcomeReasons = {
  /** The TrainJob is gone (or being deleted) before it completed or failed. */
  absent: 'NotFound',
  /** dispatch's admission check is Rejected on the TrainJob's Workload. */
  admissionCheckRejected: 'AdmissionCheckRejected',
} as const;
