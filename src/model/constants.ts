// Every label, annotation, name and condition key the product writes or reads, in one place
// (docs/contract.md §3, §4, §8, §9), so that no string literal is repeated in code: Start's, then
// those the operations after Start read and write (dispatch's held and opened annotations, and the
// condition types, reasons and check states of Trainer v2.3.0, JobSet v0.12.0 and Kueue v0.19.2
// that decide a TrainJob's phase). The Temporal names (workflow types, ids, search attributes,
// queries, signals, patch ids) are in src/contract/names.ts.

export const DISPATCH_DOMAIN = 'dispatch.phpboyscout.uk';

export const Labels = {
  managedBy: 'app.kubernetes.io/managed-by',
  jobId: `${DISPATCH_DOMAIN}/job-id`,
  generation: `${DISPATCH_DOMAIN}/generation`,
  submission: `${DISPATCH_DOMAIN}/submission`,
  kueueQueueName: 'kueue.x-k8s.io/queue-name',
  kueueJobUid: 'kueue.x-k8s.io/job-uid',
  trainerAncestorStep: 'trainer.kubeflow.org/trainjob-ancestor-step',
  probeNodeSelector: `${DISPATCH_DOMAIN}/probe`,
} as const;

export const LabelValues = {
  managedBy: 'dispatch',
  trainerStep: 'trainer',
  probeNodeSelector: 'never',
} as const;

export const Annotations = {
  comment: `${DISPATCH_DOMAIN}/comment`,
  attemptToken: `${DISPATCH_DOMAIN}/attempt-token`,
  sourceRuntime: `${DISPATCH_DOMAIN}/source-runtime`,
  kueueAdmissionGatedBy: 'kueue.x-k8s.io/admission-gated-by',
} as const;

export const Trainer = {
  group: 'trainer.kubeflow.org',
  version: 'v1alpha1',
  apiVersion: 'trainer.kubeflow.org/v1alpha1',
  trainJobKind: 'TrainJob',
  trainJobPlural: 'trainjobs',
  trainingRuntimeKind: 'TrainingRuntime',
  trainingRuntimePlural: 'trainingruntimes',
  clusterTrainingRuntimeKind: 'ClusterTrainingRuntime',
  clusterTrainingRuntimePlural: 'clustertrainingruntimes',
  /** The CRD's default for spec.managedBy: the only value read-back accepts besides absence (and, with MultiKueue, Kueue.multiKueueManagedBy). */
  controllerManagedBy: 'trainer.kubeflow.org/trainjob-controller',
  /** The container dispatch's runtime patch names. */
  nodeContainer: 'node',
} as const;

/** The downward-API field paths dispatch's runtime patch reads (docs/contract.md §4). */
export const FieldPaths = {
  podName: 'metadata.name',
  podUid: 'metadata.uid',
  podLabels: 'metadata.labels',
  podAnnotations: 'metadata.annotations',
  nodeName: 'spec.nodeName',
} as const;

/**
 * The downward-API volume dispatch's runtime patch adds to the trainer pod, mounted read-only in
 * container node (and the publish init container): one file per field (docs/contract.md §4).
 */
export const PodInfo = {
  volume: 'dispatch-pod',
  mountPath: '/etc/dispatch/pod',
  files: {
    name: 'name',
    uid: 'uid',
    labels: 'labels',
    annotations: 'annotations',
  },
} as const;

export const Kueue = {
  group: 'kueue.x-k8s.io',
  workloadPlural: 'workloads',
  managerName: 'kueue.x-k8s.io/manager',
  /** The spec.managedBy Kueue's webhook sets on a job MultiKueue dispatches to a worker cluster (docs/contract.md §11). */
  multiKueueManagedBy: 'kueue.x-k8s.io/multikueue',
} as const;

export const Dispatch = {
  /** The manager of dispatch's single runtimePatches entry. */
  patchManager: `${DISPATCH_DOMAIN}/dispatch`,
  /** argv[0] given to the prologue script, so `$0` names it in its own messages. */
  prologueName: 'dispatch-prologue',
  /** Exit code of the prologue when WorkDir cannot be entered. */
  workDirExitCode: 125,
  defaultGate: `${DISPATCH_DOMAIN}/start`,
  defaultTaskQueue: 'dispatch-kubeflow',
  namePrefix: 'dj-',
  maxNameLength: 37,
} as const;

/** dispatch's environment variables, in the order they follow the job's env (docs/contract.md §3). */
export const EnvVars = {
  jobId: 'DISPATCH_JOB_ID',
  generation: 'DISPATCH_GENERATION',
  submission: 'DISPATCH_SUBMISSION',
  attempt: 'DISPATCH_ATTEMPT',
  attemptToken: 'DISPATCH_ATTEMPT_TOKEN',
  epochPrefix: 'DISPATCH_K8S_EPOCH_PREFIX',
  workDir: 'DISPATCH_K8S_WORKDIR',
  podName: 'DISPATCH_K8S_POD_NAME',
  nodeName: 'DISPATCH_K8S_NODE_NAME',
} as const;

export const RESERVED_ENV_PREFIX = 'DISPATCH_';

/** Trainer's limits on spec.trainer.command and spec.trainer.env, and what dispatch takes of them. */
export const Limits = {
  trainerListMax: 128,
  prologueItems: 4,
  commandMax: 124,
  dispatchEnvVars: 6,
  envMax: 122,
  envMaxWithWorkDir: 121,
  generationMax: 18_000_000,
  submissionMin: 1,
  submissionMax: 999_999,
} as const;

export const Extensions = {
  image: 'dispatch/Image',
  runtimeRef: 'kubeflow/RuntimeRef',
  sharedCheckpoint: 'dispatch/SharedCheckpoint',
} as const;

/** The preflight probe's fixed spec (docs/start.md, "The preflight probe"). */
export const Probe = {
  image: 'dispatch.invalid/never:probe',
  command: ['true'],
  nodes: 1,
  submission: 1,
  attempt: 1,
} as const;

// ---- The operations after Start (docs/contract.md §9).

export const OperationAnnotations = {
  /** Set by Hold, removed by Release. */
  held: `${DISPATCH_DOMAIN}/held`,
  /** Plain mode: set by Open, never removed (docs/contract.md §9a). */
  opened: `${DISPATCH_DOMAIN}/opened`,
} as const;

export const OperationAnnotationValues = {
  held: 'true',
  opened: 'true',
} as const;

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
