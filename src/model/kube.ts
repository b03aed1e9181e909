// The parts of Kubernetes objects the core reads and writes. Only what dispatch touches is typed;
// everything else is carried through verbatim (a runtime's spec is copied untouched).

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  deletionTimestamp?: string;
  [key: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

/** A TrainingRuntime or ClusterTrainingRuntime as read; its spec is checked, then copied verbatim. */
export interface TrainerRuntime extends KubeObject {
  spec?: Record<string, unknown>;
}

export interface RuntimeRefSpec {
  apiGroup: string;
  kind: string;
  name: string;
}

/** A downward-API reference to a field of the pod. */
export interface FieldRef {
  fieldRef: { fieldPath: string };
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: FieldRef;
}

/** A pod volume as dispatch writes it: only the downward-API kind. */
export interface Volume {
  name: string;
  downwardAPI: { items: ({ path: string } & FieldRef)[] };
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}

/** A container entry of a runtime patch: Trainer merges it into the runtime's container of that name. */
export interface ContainerPatch {
  name: string;
  env?: EnvVar[];
  volumeMounts?: VolumeMount[];
}

export interface TrainerSpec {
  image: string;
  command: string[];
  env: EnvVar[];
  numNodes: number;
  numProcPerNode?: number;
  /** Quantities are int-or-string in the CRD; dispatch writes canonical strings ("8"). */
  resourcesPerNode?: { limits: Record<string, string | number> };
}

export interface RuntimePatch {
  manager: string;
  /** Set by Trainer's admission webhook on every write; read-back ignores it. */
  time?: string;
  trainingRuntimeSpec?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface TrainJobSpec {
  runtimeRef: RuntimeRefSpec;
  suspend?: boolean;
  managedBy?: string;
  trainer: TrainerSpec;
  activeDeadlineSeconds?: number;
  runtimePatches: RuntimePatch[];
  [key: string]: unknown;
}

export interface TrainJob extends KubeObject {
  metadata: ObjectMeta;
  spec: TrainJobSpec;
}

export interface Workload extends KubeObject {
  spec?: Record<string, unknown>;
  /** `clusterName`: MultiKueue's worker cluster for the job, once it chose one (docs/contract.md §11). */
  status?: { admissionChecks?: AdmissionCheckState[]; clusterName?: unknown; [key: string]: unknown };
}

/** A Workload's status.admissionChecks entry (the same in Kueue's v1beta1 and v1beta2). */
export interface AdmissionCheckState {
  name: string;
  state?: string;
  message?: string;
  lastTransitionTime?: string;
  [key: string]: unknown;
}

// ---- The shapes the operations after Start read (only what dispatch reads; the rest passes through).

/** metav1.Condition. */
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
  [key: string]: unknown;
}

/** A container's terminated state (corev1.ContainerStateTerminated). */
export interface ContainerTerminated {
  exitCode: number;
  reason?: string;
  message?: string;
  finishedAt?: string;
  [key: string]: unknown;
}

export interface ContainerStatus {
  name: string;
  state?: { terminated?: ContainerTerminated; [key: string]: unknown };
  lastState?: { terminated?: ContainerTerminated; [key: string]: unknown };
  [key: string]: unknown;
}

/** A pod of a TrainJob, as Watch reads it for the exit code. */
export interface Pod extends KubeObject {
  status?: {
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
    [key: string]: unknown;
  };
}

/** Kueue's AdmissionCheck (cluster-scoped). */
export interface AdmissionCheck extends KubeObject {
  spec?: { controllerName?: string; [key: string]: unknown };
  status?: { conditions?: Condition[]; [key: string]: unknown };
}

/** One operation of a JSON patch (RFC 6902), as dispatch writes them. */
export type JsonPatchOp =
  | { op: 'test'; path: string; value: unknown }
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };
