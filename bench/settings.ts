// The bench's sizes, from the environment, so that a developer on a shared machine runs it small
// and the full run (the sizes, the defaults) is one command.
import type { WorkerTuning } from '../src/worker/dispatch-worker.js';

export const SECTIONS = [
  'latency',
  'throughput',
  'pinned',
  'history',
  'waiting',
  'operations',
  'watching',
  'woken',
  'kueue',
  'sdk',
  'multikueue',
] as const;
export type Section = (typeof SECTIONS)[number];
/** Sections run only when BENCH_SECTIONS names them: `multikueue` needs a second cluster in the stack. */
const ASKED_FOR_ONLY: readonly Section[] = ['multikueue'];

export interface BenchSettings {
  /** BENCH_SECTIONS: a comma-separated subset of SECTIONS (default all but multikueue). */
  sections: Set<Section>;
  /** BENCH_LATENCY_STARTS: sequential Starts measured, and as many direct runs. */
  latencyStarts: number;
  /** BENCH_WARMUP: Starts (and direct runs) made before measuring, not counted. */
  warmup: number;
  /** BENCH_CALLERS: the concurrent callers of each throughput level. */
  callers: number[];
  /** BENCH_PINNED_CALLERS: the concurrent callers of each level with the worker pinned to a core of its own. */
  pinnedCallers: number[];
  /** BENCH_THROUGHPUT_SECONDS: how long each throughput level runs (pinned ones too). */
  throughputSeconds: number;
  /** BENCH_REPLAY_HISTORIES: histories replayed. */
  replayHistories: number;
  /** BENCH_WAITS: concurrent Kueue-mode Starts waiting for their Workloads. */
  waits: number;
  /** BENCH_WAIT_WINDOW_SECONDS: how long the waits are watched once all of them wait. */
  waitWindowSeconds: number;
  /** BENCH_OPERATION_JOBS: TrainJobs taken one after another through Start, Open, Hold, Release, Stop and Watch. */
  operationJobs: number;
  /** BENCH_WATCHES: concurrent Watches of Gated TrainJobs. */
  watches: number;
  /** BENCH_WATCH_WINDOW_SECONDS: how long the Watches (1, then all) are watched once all of them check. */
  watchWindowSeconds: number;
  /** BENCH_WOKEN_WATCHES: Watches at once that wait holding nothing (§9b), of TrainJobs made as Start makes them. */
  wokenWatches: number;
  /** BENCH_WOKEN_BATCH: the TrainJobs of each group that runs (one running throughout, three that complete). */
  wokenBatch: number;
  /** BENCH_WOKEN_RECHECK: the worker's timeouts.watchRecheck in that section (a Go duration). */
  wokenRecheck: string;
  /** BENCH_WOKEN_QUIET_SECONDS: how long nothing changes while the Temporal server's writes are counted. */
  wokenQuietSeconds: number;
  /** BENCH_KUEUE_JOBS: Kueue-mode TrainJobs taken one after another from Start to running pods on the real Kueue. */
  kueueJobs: number;
  /** BENCH_MULTIKUEUE_JOBS: jobs taken from Start to Outcome each way (one cluster, MultiKueue), alternately. */
  multiKueueJobs: number;
  /**
   * BENCH_TUNING: worker options over the product's DEFAULT_WORKER_TUNING, as JSON, e.g.
   * '{"maxConcurrentActivityTaskExecutions":100}' to measure the SDK's default slots.
   */
  tuning: WorkerTuning;
  /** BENCH_WORKER: `compiled` (default; tsc output run by node, as in production) or `tsx` (sources, quicker to start, ~100 MB more RSS). */
  worker: 'compiled' | 'tsx';
  /** BENCH_PRELOAD: modules the workflow bundle preloads into the shared V8 context, comma-separated (an experiment). */
  preload: string[];
  /** BENCH_OUT: where the figures go as JSON (default .dev/bench/<time>/results.json). */
  out?: string;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}=${raw}: expected a whole number ≥ 0`);
  return value;
}

function sectionsOf(raw: string | undefined): Set<Section> {
  if (!raw) return new Set(SECTIONS.filter((s) => !ASKED_FOR_ONLY.includes(s)));
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new Error(`BENCH_SECTIONS: unknown ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
  return new Set(names as Section[]);
}

const TUNING_KEYS = [
  'maxConcurrentActivityTaskExecutions',
  'maxConcurrentActivityTaskPolls',
  'maxConcurrentLocalActivityExecutions',
  'maxConcurrentWorkflowTaskExecutions',
  'maxConcurrentWorkflowTaskPolls',
  'maxCachedWorkflows',
] as const satisfies readonly (keyof WorkerTuning)[];

function tuningOf(raw: string | undefined): WorkerTuning {
  if (!raw) return {};
  const value = JSON.parse(raw) as Record<string, unknown>;
  const unknown = Object.keys(value).filter((k) => !(TUNING_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0)
    throw new Error(`BENCH_TUNING: unknown ${unknown.join(', ')}; known: ${TUNING_KEYS.join(', ')}`);
  for (const [key, v] of Object.entries(value))
    if (!Number.isInteger(v) || (v as number) < 0)
      throw new Error(`BENCH_TUNING: ${key} must be a whole number ≥ 0`);
  return value as WorkerTuning;
}

function callersOf(env: NodeJS.ProcessEnv, name: string, fallback: string): number[] {
  const callers = (env[name] ?? fallback).split(',').map((s) => Number(s.trim()));
  if (callers.some((c) => !Number.isInteger(c) || c < 1))
    throw new Error(`${name}=${env[name]}: expected whole numbers ≥ 1`);
  return callers;
}

export function benchSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const worker = env.BENCH_WORKER ?? 'compiled';
  if (worker !== 'compiled' && worker !== 'tsx')
    throw new Error(`BENCH_WORKER=${worker}: expected compiled or tsx`);
  return {
    sections: sectionsOf(env.BENCH_SECTIONS),
    latencyStarts: positiveInt(env, 'BENCH_LATENCY_STARTS', 200),
    warmup: positiveInt(env, 'BENCH_WARMUP', 10),
    callers: callersOf(env, 'BENCH_CALLERS', '1,8,32,128'),
    pinnedCallers: callersOf(env, 'BENCH_PINNED_CALLERS', '8,32'),
    throughputSeconds: positiveInt(env, 'BENCH_THROUGHPUT_SECONDS', 20),
    replayHistories: positiveInt(env, 'BENCH_REPLAY_HISTORIES', 1000),
    waits: positiveInt(env, 'BENCH_WAITS', 1000),
    waitWindowSeconds: positiveInt(env, 'BENCH_WAIT_WINDOW_SECONDS', 30),
    operationJobs: positiveInt(env, 'BENCH_OPERATION_JOBS', 20),
    watches: positiveInt(env, 'BENCH_WATCHES', 1000),
    watchWindowSeconds: positiveInt(env, 'BENCH_WATCH_WINDOW_SECONDS', 30),
    wokenWatches: positiveInt(env, 'BENCH_WOKEN_WATCHES', 10_000),
    wokenBatch: positiveInt(env, 'BENCH_WOKEN_BATCH', 100),
    // The product's default: a shorter one makes 10,000 Watches recheck faster than this machine
    // can answer (5m: 33 a second, and Opens waited minutes behind them; docs/performance.md).
    wokenRecheck: env.BENCH_WOKEN_RECHECK || '15m',
    wokenQuietSeconds: positiveInt(env, 'BENCH_WOKEN_QUIET_SECONDS', 720),
    kueueJobs: positiveInt(env, 'BENCH_KUEUE_JOBS', 20),
    multiKueueJobs: positiveInt(env, 'BENCH_MULTIKUEUE_JOBS', 20),
    tuning: tuningOf(env.BENCH_TUNING),
    preload: (env.BENCH_PRELOAD ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    worker,
    ...(env.BENCH_OUT ? { out: env.BENCH_OUT } : {}),
  };
}
