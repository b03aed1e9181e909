// What a chaos run does, drawn from its seed alone (pure): the job lifecycles dispatch sends, and
// the nemesis's fault schedule. The same seed gives the same plans; the faults land wherever the
// run happens to be at their moment, as in production.
import { seeded, subSeed, type Random } from './random.js';

export type Mode = 'plain' | 'kueue';
export type Operation = 'start' | 'open' | 'hold' | 'release' | 'stop' | 'watch';

/** The lifecycle shapes, each an order of operations after Start; Watch runs beside them from its place on. */
export const SHAPES = {
  run: ['open', 'watch'],
  'hold-release': ['open', 'watch', 'hold', 'release'],
  'stop-gated': ['watch', 'stop'],
  'stop-running': ['open', 'watch', 'stop'],
  'hold-stop': ['open', 'watch', 'hold', 'stop'],
  // Opened, its node container fails: Watch ends Failed (the MultiKueue schedule's; the exit code is on the worker cluster).
  'run-fail': ['open', 'watch'],
  // Held while it runs, released, then stopped (the MultiKueue schedule's hold-release): with Kueue
  // v0.19.2 a Hold after MultiKueue copied the job's status back keeps the manager's quota, and
  // whether the Release runs the job again depends on that eviction ending (docs/multikueue.md,
  // kubernetes-sigs/kueue#15380), so its end is a Stop rather than Succeeded.
  'hold-release-stop': ['open', 'watch', 'hold', 'release', 'stop'],
} as const satisfies Record<string, readonly Operation[]>;
export type Shape = keyof typeof SHAPES;

/** The single-cluster run's shapes (its seeds' plans are as they were before run-fail existed). */
export const SHAPE_WEIGHTS: Readonly<Partial<Record<Shape, number>>> = { run: 45, 'hold-release': 20, 'stop-gated': 10, 'stop-running': 15, 'hold-stop': 10 };
/** The MultiKueue run's (--multikueue): a failing job among them, and Hold/Release ended by a Stop. */
export const MULTIKUEUE_SHAPE_WEIGHTS: Readonly<Partial<Record<Shape, number>>> = { run: 30, 'run-fail': 15, 'hold-release-stop': 20, 'stop-gated': 10, 'stop-running': 15, 'hold-stop': 10 };

/** Shapes that act on a job while it runs use the long runtime, so that it still runs when they act. */
const LONG_SHAPES: ReadonlySet<Shape> = new Set(['hold-release', 'stop-running', 'hold-stop', 'hold-release-stop']);
/** The runtime each shape's job names. */
const runtimeOf = (shape: Shape): LifecyclePlan['runtime'] => (shape === 'run-fail' ? 'fail' : LONG_SHAPES.has(shape) ? 'long' : 'short');

export interface LifecyclePlan {
  index: number;
  mode: Mode;
  shape: Shape;
  /** Which of the run's runtimes the job names: pods that run for a short or a long while, or whose node container fails. */
  runtime: 'short' | 'long' | 'fail';
  /** Operations sent twice at once, as a caller that retries before the first answer would. */
  duplicated: Operation[];
  /** Milliseconds between one operation's answer and the next operation. */
  pauseMs: number;
  /** The MultiKueue run's: Kueue mode on a manager whose jobs run on a worker cluster. */
  multiKueue?: true;
}

/**
 * The seed's lifecycles. With `multiKueue`, every one is in Kueue mode (kueue.multiKueue needs it)
 * and the shapes are MULTIKUEUE_SHAPE_WEIGHTS' (drawn as without it: one seed, one plan either way).
 */
export function planLifecycles(seed: number, jobs: number, options: { multiKueue?: boolean } = {}): LifecyclePlan[] {
  const random = seeded(subSeed(seed, 'lifecycles'));
  return Array.from({ length: jobs }, (_, index) => {
    const shape = random.weighted((options.multiKueue ? MULTIKUEUE_SHAPE_WEIGHTS : SHAPE_WEIGHTS) as Record<Shape, number>);
    const operations: readonly Operation[] = ['start', ...SHAPES[shape]];
    const mode: Mode = random.chance(0.5) || options.multiKueue ? 'kueue' : 'plain';
    return {
      index,
      mode,
      shape,
      runtime: runtimeOf(shape),
      duplicated: operations.filter(() => random.chance(0.2)),
      pauseMs: random.int(0, 1500),
      ...(options.multiKueue ? { multiKueue: true as const } : {}),
    };
  });
}

/**
 * The parts a fault takes down. `worker-cluster-*`: the MultiKueue run's worker cluster (its
 * kube-apiserver, its Kueue) and the fault proxy in front of its API server, through which dispatch
 * alone reaches it (step 5's copies, the copy collector, Watch's pod reads); Kueue's MultiKueue
 * on the manager reaches it directly.
 */
export type FaultKind =
  | 'worker-kill'
  | 'temporal-restart'
  | 'apiserver-restart'
  | 'proxy'
  | 'kueue-restart'
  | 'trainer-restart'
  | 'worker-cluster-apiserver-restart'
  | 'worker-cluster-kueue-restart'
  | 'worker-cluster-proxy';

export const ALL_FAULT_KINDS: readonly FaultKind[] = [
  'proxy',
  'worker-kill',
  'apiserver-restart',
  'temporal-restart',
  'kueue-restart',
  'trainer-restart',
  'worker-cluster-apiserver-restart',
  'worker-cluster-kueue-restart',
  'worker-cluster-proxy',
];

export type FaultWeights = Readonly<Partial<Record<FaultKind, number>>>;

/** The single-cluster run's faults. */
export const FAULT_WEIGHTS: FaultWeights = {
  proxy: 40,
  'worker-kill': 20,
  'apiserver-restart': 10,
  'temporal-restart': 10,
  'kueue-restart': 10,
  'trainer-restart': 10,
};

/**
 * The MultiKueue run's: the worker cluster's parts as often as the manager's, the manager's still
 * there (dispatch's calls to the manager, Temporal, the workers are the same as with one cluster).
 */
export const MULTIKUEUE_FAULT_WEIGHTS: FaultWeights = {
  proxy: 15,
  'worker-kill': 10,
  'apiserver-restart': 5,
  'temporal-restart': 5,
  'kueue-restart': 5,
  'trainer-restart': 5,
  'worker-cluster-proxy': 25,
  // Less often than its Kueue: after a restart of the worker cluster's API server, its scheduler and
  // Job controller were seen to miss pods for minutes (until the next restart's relist), which
  // slows every job there without touching dispatch (docs/reliability.md).
  'worker-cluster-apiserver-restart': 10,
  'worker-cluster-kueue-restart': 15,
};

export type ProxyAction = 'drop-response' | 'hold-response' | 'hang' | 'reset' | 'status-500' | 'status-429' | 'delay';
/** Which of the worker's requests a proxy fault takes (the worker-cluster proxy's: WORKER_CLUSTER_TARGETS). */
export type ProxyTarget =
  | 'create-trainjob'
  | 'create-runtime'
  | 'patch-trainjob'
  | 'patch-runtime'
  | 'delete-trainjob'
  | 'patch-workload'
  | 'read-trainjob'
  | 'list'
  | 'any'
  | 'read-runtime'
  | 'delete-runtime'
  | 'list-runtimes'
  | 'list-pods';

const PROXY_ACTIONS: readonly ProxyAction[] = ['drop-response', 'hold-response', 'hang', 'reset', 'status-500', 'status-429', 'delay'];
const PROXY_TARGETS: readonly ProxyTarget[] = ['create-trainjob', 'create-runtime', 'patch-trainjob', 'patch-runtime', 'delete-trainjob', 'patch-workload', 'read-trainjob', 'list', 'any'];
/**
 * What dispatch asks a worker cluster: step 5's copy (create, and the read of one whose answer was
 * lost), its undo and the collector's delete, the collector's list, Watch's pod list.
 */
export const WORKER_CLUSTER_TARGETS: readonly ProxyTarget[] = ['create-runtime', 'read-runtime', 'delete-runtime', 'list-runtimes', 'list-pods', 'any'];

export interface FaultPlan {
  index: number;
  /** Milliseconds from the run's start. */
  atMs: number;
  kind: FaultKind;
  /** How long the part stays down before it is started again (restarts and kills). */
  downMs: number;
  /** Which worker a kill takes (an index into the run's workers). */
  worker?: number;
  /** How Temporal is stopped. */
  signal?: 'SIGTERM' | 'SIGKILL';
  proxy?: { action: ProxyAction; target: ProxyTarget; times: number; delayMs?: number };
}

export interface FaultOptions {
  /** Faults to plan. */
  count: number;
  /** Mean gap between two faults' starts. */
  meanGapMs: number;
  workers: number;
  /** The kinds' weights (default FAULT_WEIGHTS: the single-cluster run's). */
  weights?: FaultWeights;
  /**
   * Kinds planned first, one each in this order, before any drawn by weight: a short run (its
   * lifecycles end in half a minute) then meets each of them whatever the seed draws.
   */
  first?: readonly FaultKind[];
}

/** The MultiKueue run's first faults: each of the worker cluster's own, early. */
export const MULTIKUEUE_FIRST_FAULTS: readonly FaultKind[] = ['worker-cluster-apiserver-restart', 'worker-cluster-kueue-restart', 'worker-cluster-proxy'];

/** How long each kind keeps its part down, at most: outages stay inside a CallBound of 30 s. */
const DOWN_MS: Readonly<Record<FaultKind, readonly [number, number]>> = {
  proxy: [0, 0],
  'worker-kill': [500, 5_000],
  'apiserver-restart': [1_000, 8_000],
  'temporal-restart': [1_000, 6_000],
  'kueue-restart': [500, 4_000],
  'trainer-restart': [500, 4_000],
  'worker-cluster-proxy': [0, 0],
  'worker-cluster-apiserver-restart': [1_000, 8_000],
  'worker-cluster-kueue-restart': [500, 4_000],
};

/** Whether a fault arms a fault proxy (the manager's, or the worker cluster's). */
export const isProxyKind = (kind: FaultKind | 'workers-start') => kind === 'proxy' || kind === 'worker-cluster-proxy';

function drawFault(random: Random, index: number, atMs: number, workers: number, weights: FaultWeights, first?: FaultKind): FaultPlan {
  const kind = first ?? random.weighted(weights as Record<FaultKind, number>);
  const [min, max] = DOWN_MS[kind];
  const fault: FaultPlan = { index, atMs, kind, downMs: random.int(min, max) };
  if (kind === 'worker-kill') fault.worker = random.int(0, workers - 1);
  if (kind === 'temporal-restart') fault.signal = random.chance(0.5) ? 'SIGKILL' : 'SIGTERM';
  if (isProxyKind(kind)) {
    const action = random.pick(PROXY_ACTIONS);
    fault.proxy = {
      action,
      target: random.pick(kind === 'proxy' ? PROXY_TARGETS : WORKER_CLUSTER_TARGETS),
      times: random.int(1, 3),
      ...(action === 'delay' ? { delayMs: random.int(500, 4_000) } : {}),
    };
  }
  return fault;
}

/**
 * The fault schedule: gaps drawn around the mean, and a part never faulted again while it is still
 * down from its last fault (its next fault waits until it is back). Faults of different parts
 * overlap freely: a worker killed while the API server is away is the point.
 */
export function planFaults(seed: number, options: FaultOptions): FaultPlan[] {
  const random = seeded(subSeed(seed, 'faults'));
  const downUntil = new Map<string, number>();
  const faults: FaultPlan[] = [];
  let at = 0;
  for (let index = 0; index < options.count; index++) {
    at += Math.round(options.meanGapMs * (0.5 + random.next()));
    const fault = drawFault(random, index, at, options.workers, options.weights ?? FAULT_WEIGHTS, options.first?.[index]);
    const part = fault.kind === 'worker-kill' ? `worker-${fault.worker}` : fault.kind;
    fault.atMs = Math.max(at, downUntil.get(part) ?? 0);
    downUntil.set(part, fault.atMs + fault.downMs + 1_000);
    faults.push(fault);
  }
  return faults.sort((a, b) => a.atMs - b.atMs || a.index - b.index);
}

/** "apiserver-restart (down 4.2 s)", "proxy hang on create-trainjob x2", "worker-cluster-proxy reset on list-pods x1", for the run's log. */
export function describeFault(fault: FaultPlan): string {
  if (fault.proxy) {
    const { action, target, times, delayMs } = fault.proxy;
    return `${fault.kind} ${action}${delayMs ? ` ${delayMs} ms` : ''} on ${target} x${times}`;
  }
  const what = fault.kind === 'worker-kill' ? `worker-kill #${fault.worker}` : fault.signal ? `${fault.kind} (${fault.signal})` : fault.kind;
  return `${what}, down ${(fault.downMs / 1000).toFixed(1)} s`;
}
