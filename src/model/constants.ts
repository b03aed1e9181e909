// Every label, annotation, name and condition key the product writes or reads, in one place
// (docs/contract.md §3, §4, §8), so that no string literal is repeated in code.

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
  /** The CRD's default for spec.managedBy: the only value read-back accepts besides absence. */
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

/** Search attributes the workflows set; the Temporal dev server registers them, all Keyword. */
export const SearchAttributes = {
  jobId: 'DispatchJobId',
  trainJob: 'DispatchTrainJob',
  step: 'DispatchStep',
  /** Set by the operations after Start (docs/contract.md §9) as they learn a TrainJob's phase. */
  phase: 'DispatchPhase',
} as const;
