// Throughput: one worker, N concurrent callers each making plain-mode Starts back to back for a
// fixed time; Starts completed per second, the worker's CPU and peak RSS at each level.
import { startRequest } from '../test/support/requests.js';
import type { BenchEnv } from './env.js';
import { availableParallelism } from 'node:os';
import { cpuBetween, cpuPerUnit, cpuSnapshot, describePerUnit, describeShare } from './proc.js';
import type { BenchSettings } from './settings.js';
import { fixed, mib, ms, spread, type Row, type Spread } from './stats.js';
import { cpuSeconds, type BenchWorker } from './worker-handle.js';
import type { DispatchKubeflowClient } from '../src/client/dispatch-client.js';

export interface ThroughputLevel {
  callers: number;
  completed: number;
  failed: number;
  seconds: number;
  perSecond: number;
  latency: Spread;
  /** Cores the worker kept busy on average. */
  workerCores: number;
  workerPeakRss: number;
  cpu: string;
  /** CPU ms per Start by process (worker and servers, not the bench's client), and their sum. */
  cpuPerStart: ReturnType<typeof cpuPerUnit>;
}

/** `callers` callers making plain Starts back to back for `seconds`, and what it cost. */
export async function measureLevel(
  env: BenchEnv,
  worker: BenchWorker,
  client: DispatchKubeflowClient,
  callers: number,
  seconds: number,
): Promise<ThroughputLevel> {
  const latencies: number[] = [];
  const failures: string[] = [];
  const u0 = await worker.resetPeak();
  const c0 = cpuSnapshot(env.labels);
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const caller = async () => {
    while (performance.now() < deadline) {
      const s = performance.now();
      try {
        await client.startTrainJob(startRequest());
        latencies.push(performance.now() - s);
      } catch (error) {
        failures.push(String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  const elapsed = (performance.now() - t0) / 1000;
  const share = cpuBetween(c0, cpuSnapshot(env.labels));
  const u1 = await worker.usage();
  if (failures.length > 0)
    console.error(`[bench] ${callers} callers: ${failures.length} failed, first: ${failures[0]}`);
  return {
    callers,
    completed: latencies.length,
    failed: failures.length,
    seconds: elapsed,
    perSecond: latencies.length / elapsed,
    latency: spread(latencies),
    workerCores: cpuSeconds(u0, u1) / elapsed,
    workerPeakRss: u1.peakRss,
    cpu: describeShare(share),
    cpuPerStart: cpuPerUnit(share, latencies.length),
  };
}

export async function measureThroughput(
  env: BenchEnv,
  settings: BenchSettings,
): Promise<{ rows: Row[]; result: ThroughputLevel[] }> {
  const namespace = await env.namespace('throughput');
  const config = env.config(namespace);
  const worker = await env.worker('throughput', config);
  const client = env.client(config);
  for (let i = 0; i < settings.warmup; i++) await client.startTrainJob(startRequest());

  const levels: ThroughputLevel[] = [];
  for (const callers of settings.callers) {
    const level = await measureLevel(env, worker, client, callers, settings.throughputSeconds);
    levels.push(level);
    console.error(`[bench] throughput ${callers} callers: ${fixed(level.perSecond)} Starts/s`);
  }
  await worker.stop();

  const best = Math.max(...levels.map((l) => l.perSecond));
  const rows: Row[] = levels.flatMap((l) => [
    {
      section: 'throughput',
      metric: `${l.callers} concurrent caller${l.callers === 1 ? '' : 's'}`,
      value:
        `${fixed(l.perSecond)} Starts/s (${l.completed} in ${fixed(l.seconds)} s${l.failed ? `, ${l.failed} failed` : ''}); ` +
        `Start p50 ${ms(l.latency.p50)}, p99 ${ms(l.latency.p99)}; worker ${fixed(l.workerCores, 2)} cores, peak RSS ${mib(l.workerPeakRss)}`,
      ...(l.perSecond === best ? { target: '>= 50 Starts/s, one worker, 2 cores', met: best >= 50 } : {}),
    },
    { section: 'throughput', metric: `  CPU at ${l.callers} (cores)`, value: l.cpu },
    {
      section: 'throughput',
      metric: `  CPU per Start at ${l.callers}`,
      value: `${describePerUnit(l.cpuPerStart)}: ${fixed((availableParallelism() * 1000) / l.cpuPerStart.total)} Starts/s if all ${availableParallelism()} cores were the stack's`,
    },
  ]);
  return { rows, result: levels };
}
