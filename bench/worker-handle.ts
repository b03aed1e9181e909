// The parent's side of a bench worker (worker-child.ts): start it, ask for its CPU and RSS, stop it.
import { fork, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import type { Config } from '../src/model/config.js';
import type { WorkerTuning } from '../src/worker/dispatch-worker.js';
import { WORKER_NODE_OPTIONS } from '../src/worker/heap.js';

/** The worker's NODE_OPTIONS: the Dockerfile's (WORKER_NODE_OPTIONS), unless BENCH_WORKER_NODE_OPTIONS says otherwise ("" for Node's defaults). */
export const workerNodeOptions = process.env.BENCH_WORKER_NODE_OPTIONS ?? WORKER_NODE_OPTIONS;

export interface WorkerSpec {
  temporalAddress: string;
  temporalNamespace: string;
  config: Config;
  kubeconfigPath: string;
  bundlePath: string;
  tuning?: WorkerTuning;
}

export interface WorkerUsage {
  /** process.cpuUsage() of the worker, in microseconds since it started. */
  cpu: { user: number; system: number };
  rss: number;
  /** The highest RSS sampled (every 100 ms) since the last resetPeak, or since start. */
  peakRss: number;
  heapUsed: number;
}

export type ParentRequest = { type: 'usage' | 'reset-peak'; id: number } | { type: 'stop' };
export type ChildReply = { type: 'ready' } | { type: 'usage'; id: number; usage: WorkerUsage };

export interface BenchWorker {
  pid: number;
  usage(): Promise<WorkerUsage>;
  /** Starts a fresh peak-RSS window; answers the usage at that moment. */
  resetPeak(): Promise<WorkerUsage>;
  stop(): Promise<void>;
  /** kill -9: no shutdown, nothing flushed, as a crashed node or an OOM kill ends it. */
  kill(): Promise<void>;
  /** How the worker ended if it ended by itself (not by stop() or kill()), naming its log; else undefined. */
  died(): string | undefined;
}

/** CPU seconds between two usages. */
export const cpuSeconds = (from: WorkerUsage, to: WorkerUsage) =>
  (to.cpu.user - from.cpu.user + to.cpu.system - from.cpu.system) / 1e6;

/** How a worker process runs: compiled like production (`node <file>.js`), or from sources through tsx. */
export type WorkerProgram = { compiled: string } | 'tsx';

export async function spawnWorker(
  spec: WorkerSpec,
  program: WorkerProgram,
  logFile: string,
): Promise<BenchWorker> {
  const log = openSync(logFile, 'a');
  const [entry, execArgv] =
    program === 'tsx'
      ? [new URL('./worker-child.ts', import.meta.url).pathname, ['--import', 'tsx']]
      : [program.compiled, []];
  // BENCH_WORKER_NODE_ARGS reaches the worker alone, e.g. "--cpu-prof --cpu-prof-dir=.dev/prof".
  const extra = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = fork(entry, [], {
    execArgv: [...execArgv, ...extra],
    // The worker runs with the heap limits it is deployed with.
    env: {
      ...process.env,
      NODE_OPTIONS: workerNodeOptions,
      BENCH_WORKER_SPEC: JSON.stringify(spec),
    },
    stdio: ['ignore', log, log, 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  /** Exited, or killed by kill(): nothing to stop. */
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  /** Set by stop() and kill(): an end the bench asked for. */
  let ended = false;
  const waiting = new Map<number, (usage: WorkerUsage) => void>();
  let nextId = 1;
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  child.on('message', (reply: ChildReply) => {
    if (reply.type === 'ready') ready();
    else waiting.get(reply.id)?.(reply.usage);
  });
  await Promise.race([
    isReady,
    exited.then((code) =>
      Promise.reject(new Error(`bench worker exited with ${code} before it was ready; see ${logFile}`)),
    ),
  ]);
  const ask = (type: 'usage' | 'reset-peak') =>
    new Promise<WorkerUsage>((resolve) => {
      const id = nextId++;
      waiting.set(id, (usage) => (waiting.delete(id), resolve(usage)));
      child.send({ type, id } satisfies ParentRequest);
    });
  return {
    pid: child.pid!,
    usage: () => ask('usage'),
    resetPeak: () => ask('reset-peak'),
    async stop() {
      ended = true;
      if (gone()) return;
      child.send({ type: 'stop' } satisfies ParentRequest);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      ended = true;
      if (gone()) return;
      child.kill('SIGKILL');
      await exited;
    },
    died() {
      if (ended || !gone()) return undefined;
      return `worker ${child.pid} exited by itself (${child.signalCode ?? `code ${child.exitCode}`}); see ${logFile}`;
    },
  };
}
