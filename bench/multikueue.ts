// MultiKueue against Kueue mode on one cluster, in one run (issue #38; docs/performance.md,
// "MultiKueue"): the bench's stack is the two-cluster one (startTestStack's `multiKueue`), and the
// same jobs go two ways, alternately, one at a time:
//   - one cluster: a namespace of the manager with a ClusterQueue of its own, the sample's with
//     dispatch's check alone (bench/kueue.ts's queuesFor), so the job runs on the manager's KWOK
//     nodes as in Kueue mode without MultiKueue;
//   - MultiKueue: a namespace with the sample LocalQueue of the manager's ClusterQueue that lists
//     dispatch's check and MultiKueue's, so Kueue runs the job on worker-1, and a dispatch worker
//     configured with kueue.multiKueue (step 5 also on worker-1).
// Same manager API server, Kueue, Temporal server and worker build for both; only MultiKueue
// differs. Each job: Start, Open, Watch, and the Watch's Outcome once the job completes on KWOK.
// Measured: Start (client call to result), and the Outcome's answer after the bench's watch of the
// manager's TrainJob saw its Complete condition; with MultiKueue also the worker's copy's Complete
// to the manager's (MultiKueue copying the status back) and the Outcome after the worker's copy's
// Complete (where the job ran). Printed, never asserted.
import { Watch } from '@kubernetes/client-node';
import { adminAccess } from '../dev/harness/cluster.js';
import { kubeConfigFor, type KubeAccess } from '../dev/harness/kube-access.js';
import { addMultiKueueNamespace, untilLocalQueueSeen } from '../dev/harness/multikueue.js';
import { KUEUE_SAMPLE_QUEUE } from '../dev/harness/samples.js';
import { createKubeClients } from '../src/kube/clients.js';
import { Trainer } from '../src/model/constants.js';
import type { Outcome, TrainJobRef } from '../src/model/operations.js';
import { refOf, runFor } from '../test/integration/operations/support.js';
import { runtimeFixtures } from '../test/integration/support/runtimes.js';
import { startRequest } from '../test/support/requests.js';
import type { BenchEnv } from './env.js';
import { KUEUE } from './history.js';
import { LOCAL_QUEUE, queuesFor } from './kueue.js';
import { timed } from './observe.js';
import type { BenchSettings } from './settings.js';
import { percentile, ms, type Row } from './stats.js';

/** How long KWOK runs a job's pods before they complete. */
const RUN_FOR = '2s';
/** How long one job may take from Start to its Outcome. */
const JOB_MS = 120_000;
type Way = 'one' | 'multi';
const LABEL: Record<Way, string> = { one: 'Kueue, one cluster', multi: 'MultiKueue (manager + worker-1)' };

/** When a TrainJob (by name) was first seen with Complete True, by a watch of one namespace of one cluster. */
async function completions(access: KubeAccess, namespace: string): Promise<{ at: Map<string, number>; stop(): void }> {
  const at = new Map<string, number>();
  let stopped = false;
  let controller: AbortController | undefined;
  const path = `/apis/${Trainer.group}/${Trainer.version}/namespaces/${namespace}/${Trainer.trainJobPlural}`;
  type Job = { metadata?: { name?: string }; status?: { conditions?: { type?: string; status?: string }[] } };
  const watch = async (): Promise<void> => {
    controller = await new Watch(kubeConfigFor(access)).watch(
      path,
      {},
      (_type: string, job: Job) => {
        const name = job.metadata?.name;
        if (name && !at.has(name) && job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'))
          at.set(name, Date.now());
      },
      () => {
        if (!stopped) setTimeout(() => void watch(), 200);
      },
    );
  };
  await watch();
  return {
    at,
    stop: () => {
      stopped = true;
      controller?.abort();
    },
  };
}

interface Figures {
  jobs: number;
  startMs: number[];
  /** The Outcome answered after the manager's TrainJob was seen Complete. */
  outcomeAfterCompleteMs: number[];
  /** MultiKueue: the worker's copy seen Complete to the manager's TrainJob seen Complete. */
  copiedBackMs: number[];
  /** MultiKueue: the Outcome answered after the worker's copy was seen Complete (where the job really ended). */
  outcomeAfterWorkerCompleteMs: number[];
  /** The Outcomes' `cluster`, counted. */
  clusters: Record<string, number>;
  unexpected: string[];
}

const summary = (samples: number[]) => ({
  n: samples.length,
  p50: percentile(samples, 50),
  p95: percentile(samples, 95),
  max: percentile(samples, 100),
});
const describe = (s: ReturnType<typeof summary>) => `p50 ${ms(s.p50)}, p95 ${ms(s.p95)}, max ${ms(s.max)} (n=${s.n})`;
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');

export interface MultiKueueResult {
  jobs: number;
  runFor: string;
  ways: Record<Way, { start: ReturnType<typeof summary>; outcomeAfterComplete: ReturnType<typeof summary>; clusters: Record<string, number>; unexpected: string[] }>;
  copiedBack: ReturnType<typeof summary>;
  outcomeAfterWorkerComplete: ReturnType<typeof summary>;
  ratios: { startP50: string; outcomeP50: string; outcomeP95: string; fromJobEndP50: string; fromJobEndP95: string };
}

export async function measureMultiKueue(env: BenchEnv, settings: BenchSettings): Promise<{ rows: Row[]; result: MultiKueueResult }> {
  const workers = env.stack.info.workers ?? [];
  const worker = workers[0];
  if (worker === undefined) throw new Error('the multikueue section needs the two-cluster stack (main.ts starts it when the section is asked for)');
  const workerAccess = adminAccess(worker.kube);
  const manager = env.admin;

  // One cluster: the namespace's own ClusterQueue with dispatch's check alone, on the manager.
  const oneNs = await env.namespace('mk-one');
  const deleteQueues = await queuesFor(env, oneNs);
  // MultiKueue: the sample LocalQueue (the manager's ClusterQueue with both checks) here and on worker-1.
  const multiNs = await env.namespace('mk-multi');
  await addMultiKueueNamespace(manager, workers, multiNs);
  await untilLocalQueueSeen([manager, workerAccess], multiNs);

  const timeouts = { workload: '60s', call: '30s' };
  const configs = {
    one: env.config(oneNs, { ...KUEUE, kueue: { ...KUEUE.kueue, queue: LOCAL_QUEUE }, timeouts }),
    multi: env.config(multiNs, {
      ...KUEUE,
      kueue: {
        ...KUEUE.kueue,
        queue: KUEUE_SAMPLE_QUEUE,
        multiKueue: { clusters: [{ name: worker.name, kubeconfig: env.kubeconfigFile(worker.name, workerAccess) }] },
      },
      timeouts,
    }),
  };
  const fixtures = runtimeFixtures(createKubeClients(kubeConfigFor(manager)));
  const runtimes = {
    one: await fixtures.namespaced(oneNs, 'run-for', runFor(RUN_FOR)),
    multi: await fixtures.namespaced(multiNs, 'run-for', runFor(RUN_FOR)),
  };
  const seen = {
    one: await completions(manager, oneNs),
    multi: await completions(manager, multiNs),
    worker: await completions(workerAccess, multiNs),
  };
  const dispatchWorkers = [await env.worker('mk-one', configs.one), await env.worker('mk-multi', configs.multi)];
  const clients = { one: env.client(configs.one), multi: env.client(configs.multi) };
  const figures: Record<Way, Figures> = {
    one: { jobs: 0, startMs: [], outcomeAfterCompleteMs: [], copiedBackMs: [], outcomeAfterWorkerCompleteMs: [], clusters: {}, unexpected: [] },
    multi: { jobs: 0, startMs: [], outcomeAfterCompleteMs: [], copiedBackMs: [], outcomeAfterWorkerCompleteMs: [], clusters: {}, unexpected: [] },
  };

  /** One job of one way: Start, Open, Watch, its Outcome; measured, its figures are kept. */
  async function job(way: Way, measured: boolean): Promise<void> {
    const f = figures[way];
    const client = clients[way];
    const note = (what: string): void => void f.unexpected.push(`${measured ? '' : '(warmup) '}${what}`);
    let ref: TrainJobRef;
    let startedMs: number;
    try {
      [ref, startedMs] = await timed(async () => refOf(await (await client.submit(startRequest({ runtime: runtimes[way] }))).result()));
    } catch (error) {
      note(`Start failed: ${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)}`);
      return;
    }
    await (await client.submitOperation('open', ref)).result();
    const watching = await client.submitOperation('watch', ref);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), JOB_MS)));
    const answer = await Promise.race([
      watching.result().then(
        (outcome: Outcome) => ({ at: Date.now(), outcome }),
        (error: unknown) => ({ at: Date.now(), outcome: undefined, error }),
      ),
      late,
    ]);
    clearTimeout(timer);
    if (answer === undefined) return note(`${ref.name}: no Outcome ${JOB_MS / 1000} s after Watch began`);
    if (answer.outcome?.phase !== 'Succeeded') return note(`${ref.name}: Outcome ${answer.outcome?.phase ?? String((answer as { error?: unknown }).error)}`);
    const complete = seen[way].at.get(ref.name);
    if (complete === undefined) return note(`${ref.name}: Succeeded, but the bench never saw Complete`);
    if (!measured) return;
    f.jobs += 1;
    f.startMs.push(startedMs);
    f.outcomeAfterCompleteMs.push(answer.at - complete);
    const cluster = answer.outcome.cluster ?? '(none)';
    f.clusters[cluster] = (f.clusters[cluster] ?? 0) + 1;
    const onWorker = seen.worker.at.get(ref.name);
    if (way === 'multi' && onWorker !== undefined) {
      f.copiedBackMs.push(complete - onWorker);
      f.outcomeAfterWorkerCompleteMs.push(answer.at - onWorker);
    } else if (way === 'multi') note(`${ref.name}: the bench never saw worker-1's copy Complete`);
  }

  try {
    // Alternately, so that the machine's load drifts over both ways alike.
    const warmup = Math.min(settings.warmup, 3);
    for (let i = 0; i < warmup; i++) for (const way of ['one', 'multi'] as const) await job(way, false);
    for (let i = 0; i < settings.multiKueueJobs; i++) {
      for (const way of i % 2 === 0 ? (['one', 'multi'] as const) : (['multi', 'one'] as const)) await job(way, true);
      if ((i + 1) % 5 === 0) console.error(`[bench] multikueue: ${i + 1} of ${settings.multiKueueJobs} pairs`);
    }
  } finally {
    for (const s of Object.values(seen)) s.stop();
    await Promise.all(dispatchWorkers.map((w) => w.stop()));
    await deleteQueues();
  }

  const ways = Object.fromEntries(
    (['one', 'multi'] as const).map((way) => [
      way,
      {
        start: summary(figures[way].startMs),
        outcomeAfterComplete: summary(figures[way].outcomeAfterCompleteMs),
        clusters: figures[way].clusters,
        unexpected: figures[way].unexpected,
      },
    ]),
  ) as MultiKueueResult['ways'];
  const result: MultiKueueResult = {
    jobs: settings.multiKueueJobs,
    runFor: RUN_FOR,
    ways,
    copiedBack: summary(figures.multi.copiedBackMs),
    outcomeAfterWorkerComplete: summary(figures.multi.outcomeAfterWorkerCompleteMs),
    ratios: {
      startP50: ratio(ways.multi.start.p50, ways.one.start.p50),
      outcomeP50: ratio(ways.multi.outcomeAfterComplete.p50, ways.one.outcomeAfterComplete.p50),
      outcomeP95: ratio(ways.multi.outcomeAfterComplete.p95, ways.one.outcomeAfterComplete.p95),
      // Where the job ran: the worker's copy with MultiKueue, the manager's TrainJob without.
      fromJobEndP50: ratio(summary(figures.multi.outcomeAfterWorkerCompleteMs).p50, ways.one.outcomeAfterComplete.p50),
      fromJobEndP95: ratio(summary(figures.multi.outcomeAfterWorkerCompleteMs).p95, ways.one.outcomeAfterComplete.p95),
    },
  };
  const section = 'multikueue';
  const counted = (c: Record<string, number>) => Object.entries(c).map(([k, n]) => `${n} x ${k}`).join(', ') || 'none';
  const rows: Row[] = (['one', 'multi'] as const).flatMap((way) => [
    { section, metric: `${LABEL[way]}: Start, client call to result`, value: describe(ways[way].start) },
    { section, metric: `${LABEL[way]}: Outcome after the manager's TrainJob Complete`, value: describe(ways[way].outcomeAfterComplete) },
    { section, metric: `${LABEL[way]}: the Outcomes' cluster; unexpected`, value: `${counted(ways[way].clusters)}; ${ways[way].unexpected.length === 0 ? 'none' : ways[way].unexpected.slice(0, 3).join('; ')}` },
  ]);
  rows.push(
    { section, metric: "MultiKueue: worker-1's copy Complete to the manager's TrainJob Complete (status copied back)", value: describe(result.copiedBack) },
    { section, metric: "MultiKueue: Outcome after worker-1's copy Complete (where the job ran)", value: describe(result.outcomeAfterWorkerComplete) },
    { section, metric: 'ratio MultiKueue / one cluster: Start p50; Outcome after Complete p50, p95', value: `${result.ratios.startP50}; ${result.ratios.outcomeP50}, ${result.ratios.outcomeP95}` },
    { section, metric: "ratio MultiKueue / one cluster: Outcome after the Complete where the job ran (worker-1's copy / the manager's TrainJob) p50, p95", value: `${result.ratios.fromJobEndP50}, ${result.ratios.fromJobEndP95}` },
  );
  return { rows, result };
}
