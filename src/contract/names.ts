// The names of the Temporal contract (docs/contract.md §1, §7, §8, §9), each written once: the
// workflow types, the workflow ids and their parser, the search attributes' names, the query and
// signal names and the patch ids. They are part of every recorded history (test/histories/) and of
// dispatch's Go client (go/contract.go), so none of them ever changes. Free of zod, of Temporal and
// of I/O: the workflows, the core and the contract table (workflows.ts) all import it. The test
// test/unit/contract/one-home.test.ts fails on any of them written as a literal elsewhere in src/.
import type { TrainJobRef } from '../model/operations.js';

// ---- Activity types.

/**
 * Every activity type: workflow code schedules each by this name, so each is in recorded histories
 * (a fold's and `stopTrainJob`, Start's undo, under names older than what they do now). The
 * activities (src/activities/index.ts) fail to compile when theirs differ.
 */
export const ACTIVITY_TYPES = [
  'prepareStart',
  'getSettings',
  'prepareCapabilities',
  'checkReach',
  'checkWrite',
  'readRuntime',
  'createRuntimeCopy',
  'readRuntimeThenCopy',
  'createTrainJob',
  'setOwner',
  'readBack',
  'setOwnerThenReadBack',
  'waitForWorkload',
  'stopTrainJob',
  'prepareOperation',
  'observeTrainJob',
  'applyWrite',
  'deleteTrainJob',
  'watchTrainJob',
  'checkWatchedTrainJob',
] as const;

export type ActivityType = (typeof ACTIVITY_TYPES)[number];

// ---- Workflow types.

/** Every workflow type, by what it does. */
export const WorkflowTypes = {
  start: 'StartTrainJob',
  capabilities: 'TrainJobCapabilities',
  probe: 'ProbeBackend',
  open: 'OpenTrainJob',
  hold: 'HoldTrainJob',
  release: 'ReleaseTrainJob',
  stop: 'StopTrainJob',
  watch: 'WatchTrainJob',
} as const;

export type WorkflowKey = keyof typeof WorkflowTypes;
export type WorkflowType = (typeof WorkflowTypes)[WorkflowKey];

/** The operations after Start, as they begin their workflow ids (`open/<ns>/<name>/<uid>`). */
export const OPERATIONS = ['open', 'hold', 'release', 'stop', 'watch'] as const satisfies readonly WorkflowKey[];
export type Operation = (typeof OPERATIONS)[number];

/** Each operation as summaries, progress titles and reasons name it. */
export const OPERATION_NAMES: Record<Operation, string> = {
  open: 'Open',
  hold: 'Hold',
  release: 'Release',
  stop: 'Stop',
  watch: 'Watch',
};

/** The workflow type a caller starts for an operation (`OpenTrainJob`, ...). */
export function operationWorkflowType(op: Operation): string {
  return WorkflowTypes[op];
}

// ---- Workflow ids. Namespaces, names and UIDs never contain "/".

/** What every Start id of one TrainJob begins with, whatever its attempt. */
export const startWorkflowIdPrefix = (namespace: string, name: string) => `start/${namespace}/${name}/`;
/** Workflow id of a Start: `start/<namespace>/<name>/a<attempt>` (docs/contract.md §1). */
export const startWorkflowId = (namespace: string, name: string, attempt: number) => `${startWorkflowIdPrefix(namespace, name)}a${attempt}`;
/** The one probe of a namespace: every worker's preflight and every caller attach to it. */
export const probeWorkflowId = (namespace: string) => `probe/${namespace}`;
/** A capabilities query: `capabilities/<namespace>/<unique>`, one workflow per query. */
export const capabilitiesWorkflowId = (namespace: string, unique: string) => `capabilities/${namespace}/${unique}`;

/**
 * The workflow id of an operation after Start (docs/contract.md §9): `<op>/<namespace>/<name>/<uid>`.
 * One id per operation and TrainJob, so a second call while one runs attaches to it
 * (USE_EXISTING), and an operation on a recreated TrainJob of the same name (another UID) is
 * another workflow.
 */
export function operationWorkflowId(op: Operation, ref: TrainJobRef): string {
  return `${operationWorkflowIdPrefix(op, ref.namespace, ref.name)}${ref.uid}`;
}

export const openWorkflowId = (ref: TrainJobRef): string => operationWorkflowId('open', ref);
export const holdWorkflowId = (ref: TrainJobRef): string => operationWorkflowId('hold', ref);
export const releaseWorkflowId = (ref: TrainJobRef): string => operationWorkflowId('release', ref);
export const stopWorkflowId = (ref: TrainJobRef): string => operationWorkflowId('stop', ref);
export const watchWorkflowId = (ref: TrainJobRef): string => operationWorkflowId('watch', ref);

/** The prefix of every operation's id on one TrainJob name, whatever its UID (for visibility queries). */
export function operationWorkflowIdPrefix(op: Operation, namespace: string, name: string): string {
  return `${operationWorkflowIdNamespacePrefix(op, namespace)}${name}/`;
}

/** What the ids of an operation's workflows on every TrainJob of a namespace begin with. */
export function operationWorkflowIdNamespacePrefix(op: Operation, namespace: string): string {
  return `${op}/${namespace}/`;
}

const isOperation = (value: string): value is Operation => (OPERATIONS as readonly string[]).includes(value);

/**
 * The operation and TrainJob an id names, or undefined when it is not such an id (a Start's id,
 * `start/<ns>/<name>/a<attempt>`, is not).
 */
export function parseOperationWorkflowId(id: string): { op: Operation; ref: TrainJobRef } | undefined {
  const parts = id.split('/');
  if (parts.length !== 4) return undefined;
  const [op, namespace, name, uid] = parts as [string, string, string, string];
  if (!isOperation(op) || namespace === '' || name === '' || uid === '') return undefined;
  return { op, ref: { namespace, name, uid } };
}

/** The kinds of workflow id: each begins with its kind, then the namespace it acts in. */
export type WorkflowIdKind = 'start' | 'probe' | 'capabilities' | Operation;

const isWorkflowIdKind = (value: string): value is WorkflowIdKind =>
  value === 'start' || value === 'probe' || value === 'capabilities' || isOperation(value);

/**
 * The kind of workflow and the Kubernetes namespace a workflow id names (every id above names one),
 * or undefined for an id of no dispatch workflow. A worker acts only in the namespace its workflows'
 * ids name (docs/contract.md §10).
 */
export function namespaceOfWorkflowId(id: string): { kind: WorkflowIdKind; namespace: string } | undefined {
  const [kind, namespace] = id.split('/');
  if (kind === undefined || namespace === undefined || namespace === '' || !isWorkflowIdKind(kind)) return undefined;
  return { kind, namespace };
}

// ---- Worker identities: each names the namespace its worker acts in, so that a worker can tell
// from its task queue's pollers that a worker of another namespace polls the queue too.

const WORKER_IDENTITY_PREFIX = 'dispatch-kubeflow/';

/** A dispatch worker's Temporal identity: `dispatch-kubeflow/<namespace>/<pid>@<host>`. */
export const workerIdentity = (namespace: string, processIdentity: string): string =>
  `${WORKER_IDENTITY_PREFIX}${namespace}/${processIdentity}`;

/** The namespace a dispatch worker's identity names, or undefined for any other poller's. */
export function namespaceOfWorkerIdentity(identity: string): string | undefined {
  if (!identity.startsWith(WORKER_IDENTITY_PREFIX)) return undefined;
  const namespace = identity.slice(WORKER_IDENTITY_PREFIX.length).split('/')[0];
  return namespace === undefined || namespace === '' ? undefined : namespace;
}

// ---- Search attributes: their names (the typed keys are in search-attributes.ts).

/** Search attributes the workflows set; the Temporal dev server registers them, all Keyword. */
export const SearchAttributes = {
  jobId: 'DispatchJobId',
  trainJob: 'DispatchTrainJob',
  step: 'DispatchStep',
  /** Set by the operations after Start (docs/contract.md §9) as they learn a TrainJob's phase. */
  phase: 'DispatchPhase',
} as const;

// ---- Queries and signals.

/** What every workflow but the probe and capabilities answers: where it is (Start's steps, an operation's phase). */
export const PROGRESS_QUERY = 'progress';

/**
 * The signal that wakes a WatchTrainJob (docs/contract.md §9b): the worker's watch sends it when
 * the TrainJob changes; it carries nothing, and the Watch reads the phase itself.
 */
export const WATCH_WAKE_SIGNAL = 'wake';

// ---- Patch ids (docs/versioning.md). Each is `const NAME = 'id'`, as the patch-site scan of
// test/unit/replay reads them.

/**
 * StartTrainJob: the search attributes go out once per workflow task, when the workflow next waits
 * on something other than a local activity (the step 6 and step 9 activity tasks, the timer of a
 * local call's first backoff, the end), not after each local activity. Within a workflow task only
 * the last value was ever visible. (workflows/progress.ts)
 */
export const ONE_UPSERT_PER_TASK = 'start-one-upsert-per-task';

/** StartTrainJob folds its back-to-back calls on their first attempt (workflows/folded-steps.ts). */
export const START_FOLDED_CALLS = 'start-folded-calls';

/** StartTrainJob: a refusal at step 1 removes this attempt's unowned runtime copy (workflows/gate-refusal.ts). */
export const GATE_REFUSAL_REMOVES_COPY = 'gate-refusal-removes-unowned-copy';

/**
 * ProbeBackend: the probe stops what its Start may have made, by name and attempt token: a Start
 * that ends ErrUnreachable at step 5 (the copy create may have landed unanswered) or
 * ErrOutcomeUnknown at step 6 (the TrainJob create may have) compensates nothing, keeping the copy
 * for a retried Start of the attempt; a probe is never retried (each run has a JobID of its own), so
 * without this its copy, and maybe its TrainJob, would stay for good. (workflows/probe-backend.ts)
 */
export const PROBE_STOPS_UNKNOWN = 'probe-stops-what-it-may-have-made';

/** The operations after Start made declarative: the plans and answers of docs/contract.md §9a (workflows/run-operation.ts). */
export const OPERATIONS_DECLARATIVE = 'operations-declarative';

/** WatchTrainJob waits woken, holding no activity (workflows/watch-trainjob.ts). */
export const WATCH_WOKEN = 'watch-woken';

/** WatchTrainJob does not end in the run's first pass: a 1 ms timer first (workflows/first-task-open.ts). */
export const WATCH_FIRST_TASK_OPEN = 'watch-first-task-open';

/**
 * WatchTrainJob decides its branch when it starts, before its first local activity: runs begun
 * under it take watch-woken's and watch-first-task-open's new branches without asking for them
 * after a read (workflows/watch-trainjob.ts). Core (SDK 1.24) can record a local activity's marker
 * in a task whose completion the workflow had not yet seen the result in (a workflow task
 * heartbeat while the activity ends); a replay then hands the result over a task early, asks for a
 * patch before its marker, and fails ("Non-deprecated patch marker encountered for change
 * watch-woken"): a Watch no new worker could answer.
 */
export const WATCH_BRANCH_AT_START = 'watch-branch-at-start';

/**
 * HoldTrainJob in Kueue mode, once it has read the TrainJob's Workload: the Workload's spec.active
 * false first, then the `held` annotation on the TrainJob, so that an admission check controller's
 * Ready write made after the Hold began fails its resourceVersion test (docs/contract.md §9). A Hold
 * that finds no Workload yet marks the TrainJob first, as before. (workflows/hold-order.ts)
 */
export const HOLD_DEACTIVATES_WORKLOAD_FIRST = 'hold-deactivates-workload-first';

/** Every patch id above. */
export const PATCH_IDS = [
  ONE_UPSERT_PER_TASK,
  START_FOLDED_CALLS,
  GATE_REFUSAL_REMOVES_COPY,
  PROBE_STOPS_UNKNOWN,
  OPERATIONS_DECLARATIVE,
  WATCH_WOKEN,
  WATCH_FIRST_TASK_OPEN,
  HOLD_DEACTIVATES_WORKLOAD_FIRST,
  WATCH_BRANCH_AT_START,
] as const;
