// Watching at scale: N Watches at once on one plain-mode worker, each checking its TrainJob every
// 3 s through the worker's watch-fed lists (src/activities/watched-lists.ts; batched lists while
// the watch is not in step). N Starts are made and
// never opened, so every TrainJob stays Gated and every Watch keeps checking. The worker's
// Kubernetes calls go through the fault proxy (no faults), which counts them, as in waiting.ts.
// First one Watch alone (the floor), then all N: once every Watch checks, the API request rate and
// the worker's RSS and CPU are watched for a window. Then every TrainJob is stopped, and each
// Watch should answer Absent within a check of its Stop (the drain).
import { FaultProxy, type ProxiedRequest } from '../dev/harness/fault-proxy.js';
import { Labels, Trainer } from '../src/model/constants.js';
import { SearchAttributes } from '../src/contract/names.js';
import type { Outcome, TrainJobRef } from '../src/model/operations.js';
import { refOf } from '../test/integration/operations/support.js';
import { startRequest } from '../test/support/requests.js';
import type { BenchEnv } from './env.js';
import { CONCURRENCY, countByKind, countRunning, eachOf, untilChecking, valuesAskedBy, watchWindow } from './observe.js';
import { describeShare } from './proc.js';
import type { BenchSettings } from './settings.js';
import { describeTail, fixed, mib, tail, type Row, type Tail } from './stats.js';
import { cpuSeconds, type BenchWorker } from './worker-handle.js';

interface Job {
  ref: TrainJobRef;
  /** The job-id label value, as the lists name it. */
  jobId: string;
}

export interface WatchWindow {
  watches: number;
  /** Watches running with their phase shown (Gated), so checking, at the window's end. */
  checking: number;
  rampSeconds: number;
  windowSeconds: number;
  requests: number;
  /** TrainJob lists (the batched checks) among the requests. */
  lists: number;
  requestsPerSecond: number;
  listsPerSecond: number;
  requestsPerWatchPerSecond: number;
  /** Job-ids named per list, on average. */
  valuesPerList: number;
  /** The requests that are not TrainJob lists, by method and resource (`GET trainjobs/<name>`). */
  otherRequests: Record<string, number>;
  workerRss: number;
  workerPeakRss: number;
  workerHeapUsed: number;
  workerCores: number;
  cpu: string;
}

export interface WatchingResult {
  /** The Starts that answered a TrainJob (the Watches watch those), and those that failed. */
  starts: { count: number; failed: number; firstFailure?: string; seconds: number };
  workerIdleRss: number;
  floor: WatchWindow;
  all: WatchWindow;
  drain: {
    /** From the first Stop until every Stop answered, and until every Watch answered. */
    stopsSeconds: number;
    watchesSeconds: number;
    /** Each Watch's answer after its own TrainJob's Stop answered, in ms. */
    afterStop: Tail;
    absent: number;
    other: number;
    failed: number;
    /** Watches still running DRAIN_MS after the last Stop. */
    unanswered: number;
    /** The Stops that failed, each its error's message. */
    stopFailures: string[];
  };
}

const isTrainJobList = (r: ProxiedRequest) =>
  r.method === 'GET' && r.path.endsWith(`/${Trainer.trainJobPlural}`) && !r.watch;

/** The job-ids a TrainJob list asks about (the Watches' checks list by the job-id label). */
const jobIdsAskedBy = (r: ProxiedRequest): string[] =>
  (new URLSearchParams(r.query).get('labelSelector') ?? '').startsWith(Labels.jobId) ? valuesAskedBy(r) : [];

/** How long after the Stops the drain waits for the last Watch before it counts the rest unanswered. */
const DRAIN_MS = 600_000;

/** When each Watch answered (Date.now()), and what; NaN when it had not answered within DRAIN_MS. */
interface Answer {
  at: number;
  outcome?: Outcome;
  error?: unknown;
}

export async function measureWatching(
  env: BenchEnv,
  settings: BenchSettings,
): Promise<{ rows: Row[]; result: WatchingResult }> {
  const n = Math.max(1, settings.watches);
  const namespace = await env.namespace('watching');
  const config = env.config(namespace);
  const proxy = await FaultProxy.start({ ...env.admin, namespace });
  const worker = await env.worker('watching', config, {
    kubeconfigPath: env.kubeconfigFile('watching-proxy', proxy.accessFor()),
  });
  const idle = await worker.usage();
  const client = env.client(config);
  const answers = new Map<string, Promise<Answer>>();

  const watch = (jobs: readonly Job[]) =>
    eachOf(jobs, async ({ ref }) => {
      const handle = await client.submitOperation('watch', ref);
      answers.set(
        ref.uid,
        handle.result().then(
          (outcome: Outcome) => ({ at: Date.now(), outcome }),
          (error: unknown) => ({ at: Date.now(), error }),
        ),
      );
    });

  try {
    // N Starts, never opened: their TrainJobs stay Gated.
    const s0 = performance.now();
    const made = await eachOf(Array.from({ length: n }), async (): Promise<Job | { error: string }> => {
      const request = startRequest();
      return client.startTrainJob(request).then(
        (started) => ({ ref: refOf(started), jobId: request.job.toLowerCase() }),
        (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
      );
    });
    const jobs = made.filter((m): m is Job => 'ref' in m);
    const failures = made.flatMap((m) => ('error' in m ? [m.error] : []));
    const starts = {
      count: jobs.length,
      failed: failures.length,
      ...(failures[0] ? { firstFailure: failures[0] } : {}),
      seconds: (performance.now() - s0) / 1000,
    };
    if (jobs.length === 0) throw new Error(`watching: every Start failed, the first: ${starts.firstFailure}`);

    const taskQueue = config.temporal.taskQueue;
    const floor = await measureWindow(env, settings, proxy, worker, jobs.slice(0, 1), watch, taskQueue, 0);
    const all = await measureWindow(env, settings, proxy, worker, jobs.slice(1), watch, taskQueue, 1);

    // Drain: stop every TrainJob; each Watch then reads it gone (or being deleted) at its next check.
    const d0 = performance.now();
    const wall0 = Date.now();
    const stopFailures: string[] = [];
    const stoppedAt = await eachOf(jobs, ({ ref }) =>
      client.stop(ref).then(
        () => Date.now(),
        (error: unknown) => (stopFailures.push(error instanceof Error ? error.message : String(error)), NaN),
      ),
    );
    const stopsSeconds = (performance.now() - d0) / 1000;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<Answer>(
      (resolve) => (timer = setTimeout(() => resolve({ at: NaN }), DRAIN_MS)),
    );
    const answered = await Promise.all(
      jobs.map(({ ref }) => Promise.race([answers.get(ref.uid)!, deadline])),
    );
    clearTimeout(timer);
    const lastAnswer = Math.max(...answered.map((a) => a.at).filter((at) => !Number.isNaN(at)));
    const drain = {
      stopsSeconds,
      watchesSeconds: (lastAnswer - wall0) / 1000,
      afterStop: tail(answered.map((a, i) => a.at - stoppedAt[i]!).filter((ms) => !Number.isNaN(ms))),
      absent: answered.filter((a) => a.outcome?.phase === 'Absent').length,
      other: answered.filter((a) => a.outcome && a.outcome.phase !== 'Absent').length,
      failed: answered.filter((a) => a.error !== undefined).length,
      unanswered: answered.filter((a) => Number.isNaN(a.at)).length,
      stopFailures,
    };

    const result: WatchingResult = { starts, workerIdleRss: idle.rss, floor, all, drain };
    const rate = (w: WatchWindow) => {
      const others = Object.entries(w.otherRequests).map(([kind, count]) => `${count} ${kind}`);
      return (
        `${fixed(w.requestsPerSecond, 2)} requests/s (${fixed(w.listsPerSecond, 2)} TrainJob lists/s, ${fixed(w.valuesPerList)} job-ids per list` +
        `${others.length ? `; besides the lists ${others.join(', ')}` : ''}) ` +
        `over ${fixed(w.windowSeconds)} s = ${fixed(w.requestsPerWatchPerSecond, 4)}/s per Watch`
      );
    };
    const rows: Row[] = [
      {
        section: 'watching',
        metric: `${n} plain Starts (left Gated)`,
        value:
          `${fixed(starts.seconds)} s at ${CONCURRENCY} callers` +
          `${starts.failed ? `; ${starts.failed} FAILED, the first: ${starts.firstFailure}` : ''}`,
      },
      { section: 'watching', metric: '1 Watch (the floor): API requests', value: rate(floor) },
      {
        section: 'watching',
        metric: `${all.watches} Watches: all checking`,
        value: `${all.checking} of ${all.watches} after ${fixed(all.rampSeconds)} s`,
      },
      {
        section: 'watching',
        metric: `${all.watches} Watches: API requests`,
        value:
          `${rate(all)}; ` +
          (floor.requests > 0
            ? `${fixed(all.requestsPerSecond / floor.requestsPerSecond, 1)}x the floor's for ${all.watches}x the Watches`
            : `the floor made none in its window`),
      },
      {
        section: 'watching',
        metric: `${all.watches} Watches: worker`,
        value:
          `RSS ${mib(all.workerRss)} (peak ${mib(all.workerPeakRss)}; idle before the first Start ${mib(result.workerIdleRss)}; ` +
          `with 1 Watch ${mib(floor.workerRss)}; main-thread heap ${mib(all.workerHeapUsed)}); ` +
          `${fixed(all.workerCores, 2)} cores (${fixed(floor.workerCores, 2)} with 1 Watch)`,
      },
      { section: 'watching', metric: '  CPU while 1 Watch checks (cores)', value: floor.cpu },
      { section: 'watching', metric: `  CPU while ${all.watches} Watches check (cores)`, value: all.cpu },
      {
        section: 'watching',
        metric: `drain: Stop all ${all.watches}`,
        value:
          `Stops answered in ${fixed(drain.stopsSeconds)} s, every Watch in ${fixed(drain.watchesSeconds)} s; ` +
          `a Watch after its Stop: ${describeTail(drain.afterStop)}; ` +
          `${drain.absent} Absent, ${drain.other} another outcome, ${drain.failed} failed` +
          `${drain.unanswered ? `, ${drain.unanswered} UNANSWERED after ${DRAIN_MS / 1000} s` : ''}` +
          `${stopFailures.length ? `; ${stopFailures.length} Stops FAILED, the first: ${stopFailures[0]}` : ''}`,
      },
    ];
    return { rows, result };
  } finally {
    await worker.stop();
    await proxy.close();
  }
}

/** Starts Watches on `jobs` (`start` them), waits until every one checks, then watches a window. */
async function measureWindow(
  env: BenchEnv,
  settings: BenchSettings,
  proxy: FaultProxy,
  worker: BenchWorker,
  jobs: readonly Job[],
  start: (jobs: readonly Job[]) => Promise<unknown>,
  taskQueue: string,
  /** Watches already checking before these (the floor's). */
  already: number,
): Promise<WatchWindow> {
  // Checking, by the DispatchPhase search attribute: a Watch sets it from its first read, then
  // checks every 3 s. Its checks read the worker's watch, which no request per check shows.
  const checkingNow = () => countRunning(env, taskQueue, 'WatchTrainJob', SearchAttributes.phase, 'Gated');
  const t0 = performance.now();
  await start(jobs);
  await untilChecking('Watches checking', jobs.length + already, checkingNow, 2000);
  const rampSeconds = (performance.now() - t0) / 1000;

  const window = await watchWindow(env, worker, proxy, settings.watchWindowSeconds);
  const lists = window.requests.filter(isTrainJobList);
  const checking = await checkingNow();
  return {
    watches: jobs.length + already,
    checking,
    rampSeconds,
    windowSeconds: window.seconds,
    requests: window.requests.length,
    lists: lists.length,
    requestsPerSecond: window.requests.length / window.seconds,
    listsPerSecond: lists.length / window.seconds,
    requestsPerWatchPerSecond: window.requests.length / window.seconds / Math.max(1, checking),
    valuesPerList: lists.flatMap(jobIdsAskedBy).length / Math.max(1, lists.length),
    otherRequests: countByKind(window.requests.filter((r) => !isTrainJobList(r))),
    workerRss: window.to.rss,
    workerPeakRss: window.to.peakRss,
    workerHeapUsed: window.to.heapUsed,
    workerCores: cpuSeconds(window.from, window.to) / window.seconds,
    cpu: describeShare(window.share),
  };
}
