// The workflow types a caller starts by name (docs/contract.md §1, §7, §8, §9): the one place their
// names are written. They are part of every recorded history and of dispatch's Go client, so a
// name never changes. Free of zod and I/O: the workflows and their interceptors import it.

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

/** What every Start id of one TrainJob begins with, whatever its attempt. */
export const startWorkflowIdPrefix = (namespace: string, name: string) => `start/${namespace}/${name}/`;
/** Workflow id of a Start: `start/<namespace>/<name>/a<attempt>` (docs/contract.md §1). */
export const startWorkflowId = (namespace: string, name: string, attempt: number) => `${startWorkflowIdPrefix(namespace, name)}a${attempt}`;
/** The one probe of a namespace: every worker's preflight and every caller attach to it. */
export const probeWorkflowId = (namespace: string) => `probe/${namespace}`;
/** A capabilities query: `capabilities/<namespace>/<unique>`, one workflow per query. */
export const capabilitiesWorkflowId = (namespace: string, unique: string) => `capabilities/${namespace}/${unique}`;

/**
 * The signal that wakes a WatchTrainJob (docs/contract.md §9b): the worker's watch sends it when
 * the TrainJob changes; it carries nothing, and the Watch reads the phase itself.
 */
export const WATCH_WAKE_SIGNAL = 'wake';
