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
} as const satisfies Record<string, readonly Operation[]>;
export type Shape = keyof typeof SHAPES;

const SHAPE_WEIGHTS: Record<Shape, number> = { run: 45, 'hold-release': 20, 'stop-gated': 10, 'stop-running': 15, 'hold-stop': 10 };

/** Shapes that act on a job while it runs use the long runtime, so that it still runs when they act. */
const LONG_SHAPES: ReadonlySet<Shape> = new Set(['hold-release', 'stop-running', 'hold-stop']);

export interface LifecyclePlan {
  index: number;
  mode: Mode;
  shape: Shape;
  /** Which of the run's runtimes the job names: pods that run for a short or a long while. */
  runtime: 'short' | 'long';
  /** Operations sent twice at once, as a caller that retries before the first answer would. */
  duplicated: Operation[];
  /** Milliseconds between one operation's answer and the next operation. */
  pauseMs: number;
}

export function planLifecycles(seed: number, jobs: number): LifecyclePlan[] {
  const random = seeded(subSeed(seed, 'lifecycles'));
  return Array.from({ length: jobs }, (_, index) => {
    const shape = random.weighted(SHAPE_WEIGHTS);
    const operations: readonly Operation[] = ['start', ...SHAPES[shape]];
    return {
      index,
      mode: random.chance(0.5) ? 'kueue' : 'plain',
      shape,
      runtime: LONG_SHAPES.has(shape) ? 'long' : 'short',
      duplicated: operations.filter(() => random.chance(0.2)),
      pauseMs: random.int(0, 1500),
    };
  });
}

export type FaultKind = 'worker-kill' | 'temporal-restart' | 'apiserver-restart' | 'proxy' | 'kueue-restart' | 'trainer-restart';

export const FAULT_WEIGHTS: Readonly<Record<FaultKind, number>> = {
  proxy: 40,
  'worker-kill': 20,
  'apiserver-restart': 10,
  'temporal-restart': 10,
  'kueue-restart': 10,
  'trainer-restart': 10,
};

export type ProxyAction = 'drop-response' | 'hold-response' | 'hang' | 'reset' | 'status-500' | 'status-429' | 'delay';
/** Which of the worker's requests a proxy fault takes. */
export type ProxyTarget = 'create-trainjob' | 'create-runtime' | 'patch-trainjob' | 'patch-runtime' | 'delete-trainjob' | 'patch-workload' | 'read-trainjob' | 'list' | 'any';

const PROXY_ACTIONS: readonly ProxyAction[] = ['drop-response', 'hold-response', 'hang', 'reset', 'status-500', 'status-429', 'delay'];
const PROXY_TARGETS: readonly ProxyTarget[] = ['create-trainjob', 'create-runtime', 'patch-trainjob', 'patch-runtime', 'delete-trainjob', 'patch-workload', 'read-trainjob', 'list', 'any'];

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
}

/** How long each kind keeps its part down, at most: outages stay inside a CallBound of 30 s. */
const DOWN_MS: Readonly<Record<FaultKind, readonly [number, number]>> = {
  proxy: [0, 0],
  'worker-kill': [500, 5_000],
  'apiserver-restart': [1_000, 8_000],
  'temporal-restart': [1_000, 6_000],
  'kueue-restart': [500, 4_000],
  'trainer-restart': [500, 4_000],
};

function drawFault(random: Random, index: number, atMs: number, workers: number): FaultPlan {
  const kind = random.weighted(FAULT_WEIGHTS);
  const [min, max] = DOWN_MS[kind];
  const fault: FaultPlan = { index, atMs, kind, downMs: random.int(min, max) };
  if (kind === 'worker-kill') fault.worker = random.int(0, workers - 1);
  if (kind === 'temporal-restart') fault.signal = random.chance(0.5) ? 'SIGKILL' : 'SIGTERM';
  if (kind === 'proxy') {
    const action = random.pick(PROXY_ACTIONS);
    fault.proxy = {
      action,
      target: random.pick(PROXY_TARGETS),
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
    const fault = drawFault(random, index, at, options.workers);
    const part = fault.kind === 'worker-kill' ? `worker-${fault.worker}` : fault.kind;
    fault.atMs = Math.max(at, downUntil.get(part) ?? 0);
    downUntil.set(part, fault.atMs + fault.downMs + 1_000);
    faults.push(fault);
  }
  return faults.sort((a, b) => a.atMs - b.atMs || a.index - b.index);
}

/** "apiserver-restart (down 4.2 s)", "proxy hang create-trainjob x2", for the run's log. */
export function describeFault(fault: FaultPlan): string {
  if (fault.proxy) {
    const { action, target, times, delayMs } = fault.proxy;
    return `proxy ${action}${delayMs ? ` ${delayMs} ms` : ''} on ${target} x${times}`;
  }
  const what = fault.kind === 'worker-kill' ? `worker-kill #${fault.worker}` : fault.signal ? `${fault.kind} (${fault.signal})` : fault.kind;
  return `${what}, down ${(fault.downMs / 1000).toFixed(1)} s`;
}
