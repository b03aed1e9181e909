// Latency: sequential plain-mode Starts, client call to result, beside the direct path (the same
// activity functions without Temporal) and beside what Temporal costs on its own: a Start refused
// at validation, which makes no Kubernetes call (start, one workflow task with one local activity,
// the failure back to the client). The three alternate, one of each in turn, so that a change in
// the machine's load during the run falls on all alike.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { startRequest } from '../test/support/requests.js';
import { directStarter } from './direct.js';
import type { BenchEnv } from './env.js';
import { timed } from './observe.js';
import { cpuBetween, cpuPerUnit, cpuSnapshot, describePerUnit, describeShare } from './proc.js';
import type { BenchSettings } from './settings.js';
import { fixed, mib, ms, spread, type Row, type Spread } from './stats.js';
import { describeHops, hopSpreads, type Hop, type TimedStart } from './timeline.js';
import { cpuSeconds } from './worker-handle.js';
import { describeServed, scrapeApiserver, servedBetween, type ServedPerUnit } from './apiserver-metrics.js';

/** The direct path's five calls as the API server's metrics name them (a plain Start makes the same). */
const DISPATCH_CALLS = new Set([
  'GET trainer.kubeflow.org/clustertrainingruntimes',
  'POST trainer.kubeflow.org/trainingruntimes',
  'POST trainer.kubeflow.org/trainjobs',
  'PATCH trainer.kubeflow.org/trainingruntimes',
  'GET trainer.kubeflow.org/trainjobs',
]);

export interface LatencyResult {
  start: Spread;
  direct: Spread;
  /** A Start refused at validation: Temporal's round trip with no Kubernetes call. */
  refused: Spread;
  /** Start / direct at each percentile. */
  ratio: { p50: number; p95: number; p99: number };
  workerCpuMsPerStart: number;
  workerPeakRss: number;
  cpu: string;
  /** Medians per Start of where its time went (bench/timeline.ts). */
  hops: Record<Hop, Spread>;
  /** CPU ms per Start and direct run together, by process (the bench process runs the direct path). */
  cpuPerPair: ReturnType<typeof cpuPerUnit>;
  /** The direct path's calls, each timed by the caller. */
  directCalls: Record<string, Spread>;
  /** What the API server served per TrainJob made (a Start or a direct run), its controllers' requests included. */
  served: ServedPerUnit[];
}

const timedMs = async (work: () => Promise<unknown>) => (await timed(work))[1];

export async function measureLatency(
  env: BenchEnv,
  settings: BenchSettings,
): Promise<{ rows: Row[]; result: LatencyResult }> {
  const namespace = await env.namespace('latency');
  const config = env.config(namespace);
  const worker = await env.worker('latency', config);
  const client = env.client(config);
  const callTimes = new Map<string, number[]>();
  const direct = directStarter(config, env.kubeconfigFile(`latency-direct`, { ...env.admin, namespace }), callTimes);

  for (let i = 0; i < settings.warmup; i++) {
    await direct(startRequest());
    await client.startTrainJob(startRequest());
  }
  // Invalid for JobSpec.Validate (an empty command), sent past the typed client, which would refuse it itself.
  const refusedStart = () =>
    client.client.workflow
      .execute('StartTrainJob', {
        args: [{ ...startRequest(), spec: { ...startRequest().spec, command: [] } }],
        taskQueue: client.taskQueue,
        workflowId: `bench-refused/${randomUUID()}`,
      })
      .then(
        () => Promise.reject(new Error('an empty command was accepted')),
        (error: unknown) => (error instanceof WorkflowFailedError ? undefined : Promise.reject(error)),
      );
  for (let i = 0; i < settings.warmup; i++) await refusedStart();
  const refusedMs: number[] = [];
  const startMs: number[] = [];
  const handles: { handle: WorkflowHandle; calledAt: number; answeredAt: number }[] = [];
  const directMs: number[] = [];
  callTimes.clear();
  const s0 = await scrapeApiserver(env.admin);
  const u0 = await worker.resetPeak();
  const c0 = cpuSnapshot(env.labels);
  for (let i = 0; i < settings.latencyStarts; i++) {
    directMs.push(await timedMs(() => direct(startRequest())));
    refusedMs.push(await timedMs(refusedStart));
    const calledAt = Date.now();
    const t0 = performance.now();
    const handle = await client.submit(startRequest());
    await handle.result();
    startMs.push(performance.now() - t0);
    handles.push({ handle, calledAt, answeredAt: Date.now() });
  }
  const share = cpuBetween(c0, cpuSnapshot(env.labels));
  const u1 = await worker.usage();
  const served = servedBetween(s0, await scrapeApiserver(env.admin), 2 * settings.latencyStarts);
  await worker.stop();

  const timed: TimedStart[] = [];
  for (const { handle, calledAt, answeredAt } of handles)
    timed.push({ calledAt, answeredAt, history: await handle.fetchHistory() });
  const hops = hopSpreads(timed);
  const start = spread(startMs);
  const floor = spread(directMs);
  const result: LatencyResult = {
    start,
    direct: floor,
    refused: spread(refusedMs),
    ratio: { p50: start.p50 / floor.p50, p95: start.p95 / floor.p95, p99: start.p99 / floor.p99 },
    workerCpuMsPerStart: (cpuSeconds(u0, u1) * 1000) / settings.latencyStarts,
    workerPeakRss: u1.peakRss,
    cpu: describeShare(share),
    cpuPerPair: cpuPerUnit(share, settings.latencyStarts),
    hops,
    directCalls: Object.fromEntries([...callTimes].map(([name, times]) => [name, spread(times)])),
    served,
  };
  /** #25's ratio: a Start against what it cannot be faster than, the direct path plus Temporal's own round trip. */
  const overFloor = start.p50 / (floor.p50 + result.refused.p50);
  const triple = (s: Spread) => `p50 ${ms(s.p50)}, p95 ${ms(s.p95)}, p99 ${ms(s.p99)} (n=${s.n})`;
  const rows: Row[] = [
    { section: 'latency', metric: 'plain Start, client call to result', value: triple(start) },
    { section: 'latency', metric: 'direct path (same activities, no Temporal)', value: triple(floor) },
    {
      section: 'latency',
      metric: '  the direct path by call (p50, as its caller sees it)',
      value: Object.entries(result.directCalls)
        .map(([name, s]) => `${name} ${ms(s.p50)}`)
        .join('; '),
    },
    {
      section: 'latency',
      metric: '  the API server per TrainJob made (a Start or a direct run): requests',
      value: `dispatch's: ${describeServed(served.filter((s) => DISPATCH_CALLS.has(s.what)), 'request')}; the controllers' in answer: ${describeServed(
        served.filter((s) => !DISPATCH_CALLS.has(s.what)),
        'request',
      )} (count per TrainJob x mean time in the API server)`,
    },
    {
      section: 'latency',
      metric: '  the API server per TrainJob made: admission webhooks called',
      value: describeServed(served, 'webhook'),
    },
    {
      section: 'latency',
      metric: "Temporal's floor: a Start refused at validation (no Kubernetes call)",
      value: `${triple(result.refused)}; ${fixed(result.refused.p50 / floor.p50, 2)}x the direct path at p50`,
    },
    {
      section: 'latency',
      metric: 'Start / direct',
      value: `p50 ${fixed(result.ratio.p50, 2)}x, p95 ${fixed(result.ratio.p95, 2)}x, p99 ${fixed(result.ratio.p99, 2)}x`,
      target: 'p50 <= 1.5x',
      met: result.ratio.p50 <= 1.5,
    },
    {
      section: 'latency',
      metric: "Start / (direct path + Temporal's floor), at p50",
      value: `${fixed(overFloor, 2)} (${ms(start.p50)} / (${ms(floor.p50)} + ${ms(result.refused.p50)}))`,
      target: '<= 1.2',
      met: overFloor <= 1.2,
    },
    { section: 'latency', metric: 'where a Start spends it (medians)', value: describeHops(hops) },
    {
      section: 'latency',
      metric: 'worker per Start (sequential)',
      value: `${fixed(result.workerCpuMsPerStart)} ms CPU; peak RSS ${mib(result.workerPeakRss)}`,
    },
    { section: 'latency', metric: 'CPU during the run (cores)', value: result.cpu },
    {
      section: 'latency',
      metric: 'server CPU per Start + direct run',
      value: describePerUnit(result.cpuPerPair),
    },
  ];
  return { rows, result };
}
