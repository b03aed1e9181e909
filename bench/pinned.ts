// Worker capacity per core: the worker pinned to core 0 and every other process of the bench's tree
// (the servers of the stack and the bench's own client) to the others, with taskset, so that the
// worker's CPU per Start and the Starts/s one worker core carries are measured on a core of its own
// instead of projected from a machine whose cores the servers share.
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { startRequest } from '../test/support/requests.js';
import type { BenchEnv } from './env.js';
import { coreCpu, treePids } from './proc.js';
import type { BenchSettings } from './settings.js';
import { fixed, mib, ms, type Row } from './stats.js';
import { measureLevel, type ThroughputLevel } from './throughput.js';

export interface PinnedLevel extends ThroughputLevel {
  /** How busy each core was, 0 to 1: core 0 is the worker's alone. */
  coreBusy: number[];
  /** The worker's CPU per Start, in ms. */
  workerCpuMsPerStart: number;
  /** Starts/s divided by the worker's busy share of its core: what one worker core carried per second. */
  startsPerWorkerCore: number;
}

export type PinnedResult = { skipped: string } | { levels: PinnedLevel[] };

/** Sets the CPU affinity of every thread of `pid`; a process that is gone by now is left alone. */
function pin(pid: number, cpus: string): void {
  try {
    execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', cpus, String(pid)], { stdio: 'ignore' });
  } catch {
    // it exited between the listing and taskset
  }
}

export async function measurePinned(
  env: BenchEnv,
  settings: BenchSettings,
): Promise<{ rows: Row[]; result: PinnedResult }> {
  // The machine's cores, not this process's affinity (availableParallelism), which pinning changes.
  const cores = cpus().length;
  if (cores < 2) {
    const skipped = `needs 2 cores, this machine has ${cores}`;
    return { rows: [{ section: 'pinned', metric: 'skipped', value: skipped }], result: { skipped } };
  }
  const namespace = await env.namespace('pinned');
  const config = env.config(namespace);
  const worker = await env.worker('pinned', config);
  const client = env.client(config);
  for (let i = 0; i < settings.warmup; i++) await client.startTrainJob(startRequest());

  const everyCore = `0-${cores - 1}`;
  const others = cores === 2 ? '1' : `1-${cores - 1}`;
  const levels: PinnedLevel[] = [];
  try {
    for (const pid of treePids()) pin(pid, pid === worker.pid ? '0' : others);
    for (const callers of settings.pinnedCallers) {
      const before = coreCpu();
      const level = await measureLevel(env, worker, client, callers, settings.throughputSeconds);
      const after = coreCpu();
      const coreBusy = after.map((core, i) => (core.busy - before[i]!.busy) / (core.total - before[i]!.total));
      const workerCpuMsPerStart = level.cpuPerStart.byProcess.worker ?? Number.NaN;
      levels.push({
        ...level,
        coreBusy,
        workerCpuMsPerStart,
        startsPerWorkerCore: level.perSecond / level.workerCores,
      });
      console.error(`[bench] pinned ${callers} callers: ${fixed(level.perSecond)} Starts/s`);
    }
  } finally {
    for (const pid of treePids()) pin(pid, everyCore);
    await worker.stop();
  }

  const rows: Row[] = levels.flatMap((l) => [
    {
      section: 'pinned',
      metric: `${l.callers} callers, worker on core 0, the rest on ${others}`,
      value:
        `${fixed(l.perSecond)} Starts/s (${l.completed} in ${fixed(l.seconds)} s${l.failed ? `, ${l.failed} failed` : ''}); ` +
        `Start p50 ${ms(l.latency.p50)}; peak RSS ${mib(l.workerPeakRss)}; cores busy ${l.coreBusy.map((b, i) => `${i}: ${fixed(b * 100, 0)} %`).join(', ')}`,
    },
    {
      section: 'pinned',
      metric: `  worker at ${l.callers}: CPU per Start; Starts/s per worker core`,
      value: `${ms(l.workerCpuMsPerStart)} (${fixed(l.workerCores, 2)} of core 0 busy); ${fixed(l.startsPerWorkerCore)} Starts/s per core`,
      target: '<= 15 ms, >= 60 Starts/s per core',
      met: l.workerCpuMsPerStart <= 15,
    },
    { section: 'pinned', metric: `  CPU at ${l.callers} (cores)`, value: l.cpu },
  ]);
  return { rows, result: { levels } };
}
