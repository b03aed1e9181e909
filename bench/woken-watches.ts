// Watches that wait holding nothing (docs/contract.md §9b, the `watch-woken` branch), at scale: N
// Watches at once of real dispatch TrainJobs on a plain-mode worker, then every one of them ended.
//
// The TrainJobs are what Start makes, made the fastest way: the Start's own activity functions and
// pure core called in the bench's process (bench/direct.ts), without a workflow per TrainJob. Most
// stay Gated (never opened); BATCHES + 1 groups of `batch` run on KWOK: one opened before the Watches
// begin and running throughout (its pods run for a day), and three opened one after another later,
// whose pods complete after RUN_FOR. The stages:
//   1. all N Watches begun, until each shows its phase (Gated or Running): the worker's RSS;
//   2. a quiet window of one `watchRecheck` and a bit, nothing changing: the Temporal server's
//      persistence writes (its own metrics, bench/temporal-metrics.ts) per Watch per hour, less a
//      window as long before any Watch began; history events per Watch from a sample;
//   3. batch A opened, one worker: each Watch's Outcome after its TrainJob's `Complete` condition
//      (as the bench's own watch of the batch saw it appear);
//   4. a second worker, batch B: the same, and the wakes (signals) each Watch took;
//   5. batch C opened, then kill -9 of both workers, a new worker KILL_GAP_MS later: the same;
//   6. the rest deleted (the running batch, every Gated one): every Watch answers, and each answer is
//      checked: Succeeded for the three batches, Absent for the rest.
import * as k8s from '@kubernetes/client-node';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { trainJobName } from '../src/core/start/names.js';
import { watchWorkflowId, SearchAttributes, WATCH_WAKE_SIGNAL, WorkflowTypes } from '../src/contract/names.js';
import { createKubeClients } from '../src/kube/clients.js';
import { parseGoDuration, toMillis } from '../src/model/duration.js';
import { Labels, Trainer } from '../src/model/constants.js';
import type { Outcome, TrainJobRef } from '../src/model/operations.js';
import { kubeConfigFor } from '../dev/harness/kube-access.js';
import { runFor } from '../test/integration/operations/support.js';
import { runtimeFixtures, type RuntimeRef } from '../test/integration/support/runtimes.js';
import { startRequest } from '../test/support/requests.js';
import { directStarter } from './direct.js';
import type { BenchEnv } from './env.js';
import { eachOf, untilTrue } from './observe.js';
import { cpuBetween, cpuSnapshot, describeShare } from './proc.js';
import type { BenchSettings } from './settings.js';
import { fixed, mib, ms, spread, tail, type Row, type Spread, type Tail } from './stats.js';
import { isWrite, persistenceBetween, scrapePersistence, type PersistenceBetween } from './temporal-metrics.js';

/** The store operation that writes a workflow execution's own state: §9c's budget counts these. */
const EXECUTION_WRITE = 'UpdateWorkflowExecution';
import type { BenchWorker } from './worker-handle.js';

/** How long KWOK runs a batch's pods before they complete. */
const RUN_FOR = '45s';
/** The running batch's pods: longer than the bench. */
const RUN_LONG = '24h';
/** Between kill -9 of every worker and the next worker's start. */
const KILL_GAP_MS = 15_000;
/** How long a batch may take to answer after its pods should have completed. */
const BATCH_DEADLINE_MS = 10 * 60_000;
/** How long every Watch may take to answer after the last delete. */
const DRAIN_DEADLINE_MS = 30 * 60_000;
/** The product's default timeouts.watchRecheck. */
const DEFAULT_RECHECK = '15m';
/** A Watch's rechecks an hour at the default watchRecheck, nothing changing. */
const RECHECKS_PER_HOUR = 3_600_000 / toMillis(parseGoDuration(DEFAULT_RECHECK)!);
/** A settle window: the quiet one begins after one of these with almost no TrainJob change. */
const SETTLE_WINDOW_MS = 30_000;
/** How long the controllers may take to stop rewriting the TrainJobs before the quiet window begins anyway. */
const SETTLE_DEADLINE_MS = 40 * 60_000;
/** Watches whose histories are read for events in the quiet window. */
const HISTORY_SAMPLE = 300;

type Job = { ref: TrainJobRef; jobId: string; group: 'gated' | 'running' | 'A' | 'B' | 'C' };

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface BatchResult {
  group: 'A' | 'B' | 'C';
  workers: string;
  jobs: number;
  /** Watch answered (its workflow closed) after the bench saw the TrainJob's Complete condition, ms. */
  afterComplete: Spread;
  /** Answers other than Succeeded, and Watches that did not answer in time. */
  wrong: string[];
  /** `wake` signals in each Watch's history, and local-activity reads (markers). */
  wakes: Tail;
  reads: Tail;
}

export interface WokenWatchesResult {
  watches: number;
  recheck: string;
  made: { seconds: number; failed: number; firstFailure?: string };
  begun: { seconds: number; showingPhase: number };
  worker: { idleRss: number; rssAllWaiting: number; peakRssAllWaiting: number; heapUsed: number };
  quiet: {
    seconds: number;
    baselineSeconds: number;
    persistence: PersistenceBetween;
    baseline: PersistenceBetween;
    writesPerWatchPerHour: number;
    /** TrainJob changes the API server sent in the window (any field, the controllers' status rewrites included). */
    trainJobChanges: number;
    /** Seconds waited, before the window, for the controllers to stop changing the TrainJobs. */
    settleSeconds: number;
    /** Timers fired per Watch in the window (from a sample of histories). */
    rechecksPerWatch: number;
    /** Wake signals per Watch in the window (changes of what it reads; from the sample). */
    wakesPerWatch: number;
    /** Workflow tasks completed per Watch in the window (from the sample): rechecks and wakes alike. */
    workflowTasksPerWatch: number;
    /** The window's writes per workflow task: a recheck costs one workflow task, as a wake does. */
    writesPerWorkflowTask: number;
    /**
     * Of those, the writes of the Watch's own execution (UpdateWorkflowExecution): what §9c's budget
     * of 3 per recheck counts; the rest is the server's shared housekeeping (task queues, timer tasks).
     */
    executionWritesPerWorkflowTask: number;
    /** At the default watchRecheck, nothing changing: one recheck's writes (one workflow task's), times its rechecks per hour. */
    writesPerWatchPerHourAtDefault: number;
    historyEventsPerWatchPerHour: number;
    workerCpuCores: number;
    cpu: string;
  };
  batches: BatchResult[];
  drain: { deleted: number; deleteFailures: string[]; seconds: number; afterDelete: Spread };
  answers: { right: number; wrong: number; failed: number; unanswered: number; examples: string[] };
}

export async function measureWokenWatches(
  env: BenchEnv,
  settings: BenchSettings,
): Promise<{ rows: Row[]; result: WokenWatchesResult }> {
  const n = Math.max(settings.wokenBatch * 4 + 1, settings.wokenWatches);
  const batch = settings.wokenBatch;
  const recheck = settings.wokenRecheck;
  const namespace = await env.namespace('woken');
  const config = env.config(namespace, { timeouts: { watchRecheck: recheck } });
  const adminKubeconfig = env.kubeconfigFile('woken-admin', { ...env.admin, namespace });
  const kc = kubeConfigFor({ ...env.admin, namespace });
  const kube = createKubeClients(kc);
  const runtimes = runtimeFixtures(kube);
  const [short, long] = await Promise.all([
    runtimes.namespaced(namespace, 'run-short', runFor(RUN_FOR)),
    runtimes.namespaced(namespace, 'run-long', runFor(RUN_LONG)),
  ]);
  const client = env.client(config);
  const workers: BenchWorker[] = [await env.worker('woken-1', config)];
  const idle = await workers[0]!.usage();

  // 1. The TrainJobs, as Start makes them. One pod each for the ones that run: 2 KWOK nodes hold 220.
  const start = directStarter(config, adminKubeconfig);
  const groupOf = (i: number): Job['group'] =>
    i < batch ? 'running' : i < 2 * batch ? 'A' : i < 3 * batch ? 'B' : i < 4 * batch ? 'C' : 'gated';
  const runtimeOf = (group: Job['group']): RuntimeRef | undefined =>
    group === 'gated' ? undefined : group === 'running' ? long : short;
  const m0 = performance.now();
  const made = await eachOf(Array.from({ length: n }, (_, i) => groupOf(i)), async (group) => {
    const runtime = runtimeOf(group);
    const request = runtime ? startRequest({ runtime, spec: { nodes: 1, gpusPerNode: null } }) : startRequest();
    try {
      const uid = await start(request);
      return { ref: { namespace, name: trainJobName(request.job, request.submission), uid }, jobId: request.job.toLowerCase(), group } satisfies Job;
    } catch (error) {
      return { error: message(error) };
    }
  }, { what: 'woken: TrainJobs made' });
  const jobs = made.filter((m): m is Job => 'ref' in m);
  const failures = made.flatMap((m) => ('error' in m ? [m.error] : []));
  const madeResult = { seconds: (performance.now() - m0) / 1000, failed: failures.length, ...(failures[0] ? { firstFailure: failures[0] } : {}) };
  if (failures.length > 0) console.error(`[bench] woken: ${failures.length} TrainJobs not made, the first: ${failures[0]}`);
  const inGroup = (group: Job['group']) => jobs.filter((j) => j.group === group);

  // The running batch runs throughout.
  await eachOf(inGroup('running'), (j) => client.open(j.ref), { what: 'woken: running batch opened', every: batch });

  // 2. Every Watch begun, until each shows its phase. Before that, a window as long as the quiet
  // one's share of the background: the server's writes with no Watch at all.
  const baselineSeconds = Math.min(120, settings.wokenQuietSeconds);
  const b0 = await scrapePersistence(env.temporalMetricsUrl);
  await new Promise((resolve) => setTimeout(resolve, baselineSeconds * 1000));
  const baseline = persistenceBetween(b0, await scrapePersistence(env.temporalMetricsUrl));

  const w0 = performance.now();
  await eachOf(jobs, (j) => client.submitOperation('watch', j.ref), { what: 'woken: Watches begun' });
  const watchQuery = `TaskQueue = '${config.temporal.taskQueue}' AND WorkflowType = '${WorkflowTypes.watch}'`;
  const showing = async () => {
    const { count } = await env.temporal.workflow.count(
      `${watchQuery} AND ExecutionStatus = 'Running' AND ${SearchAttributes.phase} IN ('Gated', 'Running')`,
    );
    return count;
  };
  let showingPhase = 0;
  await untilTrue(30 * 60_000, async () => {
    showingPhase = await showing();
    console.error(`[bench] woken: ${showingPhase}/${jobs.length} Watches showing their phase`);
    return showingPhase >= jobs.length;
  }, 5_000);
  const begun = { seconds: (performance.now() - w0) / 1000, showingPhase };

  // 3. Quiet: nothing changes for one recheck and a bit. First the controllers catch up: Trainer
  // makes a JobSet for every TrainJob and writes its conditions, which change what a Watch reads and
  // wake it (rightly); at 10,000 that goes on for tens of minutes on this machine.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const settleSeconds = await settled(kc, namespace, Math.max(1, Math.floor(jobs.length / 1000)));
  // What the cluster changed meanwhile: quiet for the Watches is no change of what they read, but
  // the controllers may still be rewriting the TrainJobs' status (their JobSets' counts).
  const changes = await countChanges(kc, namespace);
  const u0 = await workers[0]!.resetPeak();
  const q0 = await scrapePersistence(env.temporalMetricsUrl);
  const c0 = cpuSnapshot(env.labels);
  const quietFrom = Date.now();
  console.error(`[bench] woken: quiet for ${settings.wokenQuietSeconds} s`);
  await new Promise((resolve) => setTimeout(resolve, settings.wokenQuietSeconds * 1000));
  const quietTo = Date.now();
  const trainJobChanges = changes.stop();
  const persistence = persistenceBetween(q0, await scrapePersistence(env.temporalMetricsUrl));
  const share = cpuBetween(c0, cpuSnapshot(env.labels));
  const u1 = await workers[0]!.usage();
  const quietSeconds = (quietTo - quietFrom) / 1000;
  const netWrites = persistence.writes - (baseline.writes * quietSeconds) / baselineSeconds;
  const writesPerWatchPerHour = (netWrites / jobs.length) * (3600 / quietSeconds);
  // The workflow tasks each Watch had in the window (timers fired and wakes alike), counted in a
  // sample of histories: the writes of one workflow task are a recheck's, times the default
  // watchRecheck's four an hour. A wake left in the window by a change the controllers still made
  // costs a workflow task too, so it is counted, not mistaken for a recheck's cost.
  const sampled = await eventsBetween(env, jobs.filter((_, i) => i % Math.ceil(jobs.length / HISTORY_SAMPLE) === 0), quietFrom, quietTo);
  // No workflow task in the sample (a window shorter than the recheck): no figure, rather than a division by ~0.
  const writesPerWorkflowTask = sampled.workflowTasks > 0 ? netWrites / jobs.length / sampled.workflowTasks : NaN;
  const writesPerWatchPerHourAtDefault = writesPerWorkflowTask * RECHECKS_PER_HOUR;
  const opCount = (between: PersistenceBetween, op: string) => between.byOperation.find(([name]) => name === op)?.[1] ?? 0;
  const netExecutionWrites = opCount(persistence, EXECUTION_WRITE) - (opCount(baseline, EXECUTION_WRITE) * quietSeconds) / baselineSeconds;
  const executionWritesPerWorkflowTask = sampled.workflowTasks > 0 ? netExecutionWrites / jobs.length / sampled.workflowTasks : NaN;
  const quiet = {
    seconds: quietSeconds,
    baselineSeconds,
    persistence,
    baseline,
    writesPerWatchPerHour,
    writesPerWatchPerHourAtDefault,
    trainJobChanges,
    settleSeconds,
    rechecksPerWatch: sampled.rechecks,
    wakesPerWatch: sampled.wakes,
    workflowTasksPerWatch: sampled.workflowTasks,
    writesPerWorkflowTask,
    executionWritesPerWorkflowTask,
    historyEventsPerWatchPerHour: sampled.events * (3600 / quietSeconds),
    workerCpuCores: (u1.cpu.user - u0.cpu.user + u1.cpu.system - u0.cpu.system) / 1e6 / quietSeconds,
    cpu: describeShare(share),
  };
  const worker = { idleRss: idle.rss, rssAllWaiting: u1.rss, peakRssAllWaiting: u1.peakRss, heapUsed: u1.heapUsed };
  // Each stage's figures as soon as they exist: a long run stopped later still has them.
  console.error(`[bench] woken: quiet ${JSON.stringify({ ...quiet, persistence: { ...quiet.persistence, byOperation: quiet.persistence.byOperation.slice(0, 12) } })}`);
  console.error(`[bench] woken: worker ${JSON.stringify(worker)}`);

  // 4-6. The batches: one worker; two; kill -9 of both and a new one.
  const batches: BatchResult[] = [];
  batches.push(await runBatch(workers, env, client, kc, inGroup('A'), 'A', '1 worker'));
  const second = await env.worker('woken-2', config);
  workers.push(second);
  // Its first list of N TrainJobs (paged) and its sweep of the running Watches: batch B measures two
  // workers at work, not one of them starting (the run of 2026-12-03 09:05 gave it 10 s: p99 3.6 s).
  console.error(`[bench] woken: the second worker settled in ${await settledWorker(second)} s`);
  batches.push(await runBatch(workers, env, client, kc, inGroup('B'), 'B', '2 workers'));
  batches.push(
    await runBatch(workers, env, client, kc, inGroup('C'), 'C', `kill -9 of both, a new worker ${KILL_GAP_MS / 1000} s later`, async () => {
      await Promise.all(workers.splice(0).map((w) => w.kill()));
      await new Promise((resolve) => setTimeout(resolve, KILL_GAP_MS));
      workers.push(await env.worker('woken-3', config));
    }),
  );

  // 7. The rest deleted: each Watch answers Absent.
  const rest = [...inGroup('running'), ...inGroup('gated')];
  const deleteFailures: string[] = [];
  const deletedAt = new Map<string, number>();
  const d0 = performance.now();
  await eachOf(rest, async (j) => {
    try {
      await kube.custom.deleteNamespacedCustomObject({
        group: Trainer.group,
        version: Trainer.version,
        plural: Trainer.trainJobPlural,
        namespace,
        name: j.ref.name,
        propagationPolicy: 'Background',
      });
      deletedAt.set(j.ref.uid, Date.now());
    } catch (error) {
      deleteFailures.push(message(error));
    }
  }, { what: 'woken: deleted' });
  await untilTrue(DRAIN_DEADLINE_MS, async () => {
    const { count } = await env.temporal.workflow.count(`${watchQuery} AND ExecutionStatus = 'Running'`);
    console.error(`[bench] woken: ${count} Watches still waiting`);
    return count === 0;
  }, 5_000);
  const closed = new Map<string, WorkflowExecutionInfo>();
  for await (const execution of env.temporal.workflow.list({ query: `${watchQuery} AND ExecutionStatus != 'Running'` }))
    closed.set(execution.workflowId, execution);
  const afterDelete = rest.flatMap((j) => {
    const at = closed.get(watchWorkflowId(j.ref))?.closeTime?.getTime();
    const from = deletedAt.get(j.ref.uid);
    return at !== undefined && from !== undefined ? [at - from] : [];
  });
  const drain = { deleted: deletedAt.size, deleteFailures: deleteFailures.slice(0, 5), seconds: (performance.now() - d0) / 1000, afterDelete: spread(afterDelete) };
  console.error(`[bench] woken: drain ${JSON.stringify(drain)}`);

  // 8. Every answer checked.
  const answers = { right: 0, wrong: 0, failed: 0, unanswered: 0, examples: [] as string[] };
  await eachOf(jobs, async (j) => {
    const id = watchWorkflowId(j.ref);
    if (!closed.has(id)) {
      answers.unanswered += 1;
      return;
    }
    const expected = ['A', 'B', 'C'].includes(j.group) ? 'Succeeded' : 'Absent';
    try {
      const outcome = (await env.temporal.workflow.getHandle(id).result()) as Outcome;
      if (outcome.phase === expected) answers.right += 1;
      else {
        answers.wrong += 1;
        if (answers.examples.length < 5) answers.examples.push(`${j.group} ${j.ref.name}: ${outcome.phase}, expected ${expected}`);
      }
    } catch (error) {
      answers.failed += 1;
      if (answers.examples.length < 5) answers.examples.push(`${j.group} ${j.ref.name}: ${message(error)}`);
    }
  }, { what: 'woken: answers read' });
  await Promise.all(workers.map((w) => w.stop()));

  const result: WokenWatchesResult = { watches: jobs.length, recheck, made: madeResult, begun, worker, quiet, batches, drain, answers };
  return { rows: rowsOf(result), result };
}

/** Counts the namespace's TrainJob changes from now until stop(). */
async function countChanges(kc: k8s.KubeConfig, namespace: string): Promise<{ stop(): number }> {
  const path = `/apis/${Trainer.group}/${Trainer.version}/namespaces/${namespace}/${Trainer.trainJobPlural}`;
  const listed = (await kc.makeApiClient(k8s.CustomObjectsApi).listNamespacedCustomObject({
    group: Trainer.group,
    version: Trainer.version,
    namespace,
    plural: Trainer.trainJobPlural,
    limit: 1,
  })) as { metadata?: { resourceVersion?: string } };
  let changes = 0;
  const watching = await new k8s.Watch(kc).watch(
    path,
    { resourceVersion: listed.metadata?.resourceVersion ?? '' },
    () => (changes += 1),
    () => {},
  );
  return {
    stop() {
      (watching as { abort?: () => void }).abort?.();
      return changes;
    },
  };
}

/** A worker's CPU over one window below this many cores: done with its start. */
const WORKER_IDLE_CORES = 0.15;
const WORKER_IDLE_WINDOW_MS = 5_000;
const WORKER_SETTLE_DEADLINE_MS = 180_000;

/** Waits (at least 10 s, at most WORKER_SETTLE_DEADLINE_MS) until a new worker's CPU is idle for a window; the seconds waited. */
async function settledWorker(worker: BenchWorker): Promise<number> {
  const s0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  while (performance.now() - s0 < WORKER_SETTLE_DEADLINE_MS) {
    const before = await worker.usage();
    await new Promise((resolve) => setTimeout(resolve, WORKER_IDLE_WINDOW_MS));
    const after = await worker.usage();
    const cores = (after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system) / 1e3 / WORKER_IDLE_WINDOW_MS;
    if (cores < WORKER_IDLE_CORES) break;
  }
  return Math.round((performance.now() - s0) / 1000);
}

/**
 * Waits until a SETTLE_WINDOW_MS passes with at most `atMost` TrainJob changes (or SETTLE_DEADLINE_MS),
 * printing each window's count; returns the seconds waited.
 */
async function settled(kc: k8s.KubeConfig, namespace: string, atMost: number): Promise<number> {
  const s0 = performance.now();
  while (performance.now() - s0 < SETTLE_DEADLINE_MS) {
    const changes = await countChanges(kc, namespace);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_WINDOW_MS));
    const count = changes.stop();
    console.error(`[bench] woken: settling: ${count} TrainJob changes in ${SETTLE_WINDOW_MS / 1000} s (at most ${atMost} to begin)`);
    if (count <= atMost) break;
  }
  return (performance.now() - s0) / 1000;
}

type WindowCounts = { events: number; rechecks: number; wakes: number; workflowTasks: number };

/** The sample's Watches' history events stamped within [from, to], their timers fired (rechecks), wakes and workflow tasks, per Watch. */
async function eventsBetween(env: BenchEnv, sample: readonly Job[], from: number, to: number): Promise<WindowCounts> {
  const counts = await eachOf(sample, async (j) => {
    const history = await env.temporal.workflow.getHandle(watchWorkflowId(j.ref)).fetchHistory();
    const within = (history.events ?? []).filter((e) => {
      const at = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
      return at >= from && at <= to;
    });
    return {
      events: within.length,
      rechecks: within.filter((e) => e.timerFiredEventAttributes).length,
      wakes: within.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === WATCH_WAKE_SIGNAL).length,
      workflowTasks: within.filter((e) => e.workflowTaskCompletedEventAttributes).length,
    };
  }, { what: 'woken: sample histories read', every: sample.length });
  const per = (key: keyof WindowCounts) => counts.reduce((a, c) => a + c[key], 0) / Math.max(1, sample.length);
  return { events: per('events'), rechecks: per('rechecks'), wakes: per('wakes'), workflowTasks: per('workflowTasks') };
}

/**
 * Opens the batch, then (if given) does `meanwhile`; each Watch's answer is timed against the moment
 * the bench's own watch of the batch saw its TrainJob's Complete condition.
 */
async function runBatch(workers: readonly BenchWorker[], ...args: Parameters<typeof measureBatch>): Promise<BatchResult> {
  const result = await measureBatch(...args);
  // A batch's figures are its workers' only if they all lived through it (a new worker that died of
  // its first list once made a "2 workers" batch a one-worker one, and the next batch had none).
  const dead = workers.map((w) => w.died()).filter((d) => d !== undefined);
  if (dead.length > 0) throw new Error(`batch ${result.group}: ${dead.join('; ')}`);
  console.error(`[bench] woken: batch ${JSON.stringify({ ...result, wrong: result.wrong.slice(0, 5) })}`);
  return result;
}

async function measureBatch(
  env: BenchEnv,
  client: ReturnType<BenchEnv['client']>,
  kc: k8s.KubeConfig,
  jobs: readonly Job[],
  group: 'A' | 'B' | 'C',
  workers: string,
  meanwhile?: () => Promise<void>,
): Promise<BatchResult> {
  console.error(`[bench] woken: batch ${group} (${workers})`);
  const completeAt = new Map<string, number>();
  const namespace = jobs[0]?.ref.namespace ?? '';
  const watching = await new k8s.Watch(kc).watch(
    `/apis/${Trainer.group}/${Trainer.version}/namespaces/${namespace}/${Trainer.trainJobPlural}`,
    { labelSelector: `${Labels.jobId} in (${jobs.map((j) => j.jobId).join(',')})` },
    (_type: string, object: { metadata?: { uid?: string }; status?: { conditions?: { type: string; status: string }[] } }) => {
      const uid = object.metadata?.uid;
      if (uid && !completeAt.has(uid) && object.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'))
        completeAt.set(uid, Date.now());
    },
    () => {},
  );
  const answered = jobs.map((j) =>
    env.temporal.workflow
      .getHandle(watchWorkflowId(j.ref))
      .result()
      .then(
        (outcome: Outcome) => ({ at: Date.now(), outcome, error: undefined }),
        (error: unknown) => ({ at: Date.now(), outcome: undefined, error }),
      ),
  );
  await eachOf(jobs, (j) => client.open(j.ref), { what: `woken: batch ${group} opened`, every: jobs.length });
  await meanwhile?.();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), BATCH_DEADLINE_MS)));
  const answers = await Promise.all(answered.map((a) => Promise.race([a, late])));
  clearTimeout(timer);
  (watching as { abort?: () => void }).abort?.();
  const wrong: string[] = [];
  const latencies: number[] = [];
  answers.forEach((a, i) => {
    const j = jobs[i]!;
    if (a === undefined) return wrong.push(`${j.ref.name}: no answer`);
    if (a.error !== undefined || a.outcome?.phase !== 'Succeeded')
      return wrong.push(`${j.ref.name}: ${a.error !== undefined ? message(a.error) : a.outcome?.phase}`);
    const complete = completeAt.get(j.ref.uid);
    if (complete === undefined) return wrong.push(`${j.ref.name}: Succeeded, but the bench never saw Complete`);
    latencies.push(a.at - complete);
  });
  const counted = await eachOf(jobs, async (j) => {
    const events = (await env.temporal.workflow.getHandle(watchWorkflowId(j.ref)).fetchHistory()).events ?? [];
    return {
      wakes: events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === WATCH_WAKE_SIGNAL).length,
      reads: events.filter((e) => e.markerRecordedEventAttributes).length,
    };
  }, { what: `woken: batch ${group} histories read`, every: jobs.length });
  return {
    group,
    workers,
    jobs: jobs.length,
    afterComplete: spread(latencies),
    wrong,
    wakes: tail(counted.map((c) => c.wakes)),
    reads: tail(counted.map((c) => c.reads)),
  };
}

function rowsOf(r: WokenWatchesResult): Row[] {
  const section = 'woken';
  const q = r.quiet;
  const top = (p: PersistenceBetween) =>
    p.byOperation
      .filter(([op]) => isWrite(op))
      .slice(0, 6)
      .map(([op, c]) => `${op} ${c}`)
      .join(', ');
  return [
    {
      section,
      metric: `TrainJobs made (as Start makes them, no workflow), then Watches begun until each shows its phase`,
      value: `${r.watches} in ${fixed(r.made.seconds, 0)} s${r.made.failed ? ` (${r.made.failed} failed: ${r.made.firstFailure})` : ''}; ${r.begun.showingPhase} showing in ${fixed(r.begun.seconds, 0)} s`,
    },
    {
      section,
      metric: `every Watch answered the right Outcome`,
      value: `${r.answers.right} of ${r.watches}; wrong ${r.answers.wrong}, failed ${r.answers.failed}, unanswered ${r.answers.unanswered}${r.answers.examples.length ? ` (${r.answers.examples.join('; ')})` : ''}`,
      target: `all ${r.watches}`,
      met: r.answers.right === r.watches,
    },
    {
      section,
      metric: `worker RSS with every Watch waiting (idle before)`,
      value: `${mib(r.worker.rssAllWaiting)}, peak ${mib(r.worker.peakRssAllWaiting)} (idle ${mib(r.worker.idleRss)}; heap ${mib(r.worker.heapUsed)})`,
      target: '≤ 300 MiB',
      met: r.worker.peakRssAllWaiting <= 300 * 2 ** 20,
    },
    {
      section,
      metric: `Temporal persistence writes per Watch per hour, nothing changing (server metrics; recheck ${r.recheck})`,
      value: `${fixed(q.writesPerWatchPerHour, 2)} (${q.persistence.writes} writes over ${fixed(q.seconds, 0)} s less ${fixed((q.baseline.writes * q.seconds) / q.baselineSeconds, 0)} of background; the writes: ${top(q.persistence)})`,
    },
    {
      section,
      metric: `  the same at the default watchRecheck (${DEFAULT_RECHECK}), nothing changing: one recheck's writes (a workflow task's) x 4`,
      value: `${fixed(q.writesPerWatchPerHourAtDefault, 2)} (${fixed(q.writesPerWorkflowTask, 2)} writes per workflow task; per Watch in the window, from the sample: ${fixed(q.workflowTasksPerWatch, 2)} workflow tasks, ${fixed(q.rechecksPerWatch, 2)} rechecks, ${fixed(q.wakesPerWatch, 2)} wakes; settled ${fixed(q.settleSeconds, 0)} s before it)`,
      target: '≤ 12.5 (docs/contract.md §9c)',
      ...(Number.isFinite(q.writesPerWatchPerHourAtDefault) ? { met: q.writesPerWatchPerHourAtDefault <= 12.5 } : {}),
    },
    {
      section,
      metric: `  of a recheck's writes, its own execution's (${EXECUTION_WRITE}); the rest is the server's shared task housekeeping`,
      value: `${fixed(q.executionWritesPerWorkflowTask, 2)} per workflow task, ${fixed(q.executionWritesPerWorkflowTask * RECHECKS_PER_HOUR, 2)} an hour at ${DEFAULT_RECHECK}`,
      target: '≤ 3 per recheck (docs/contract.md §9c)',
      ...(Number.isFinite(q.executionWritesPerWorkflowTask) ? { met: q.executionWritesPerWorkflowTask <= 3 } : {}),
    },
    {
      section,
      metric: '  history events per Watch per hour in the window (a sample of Watches)',
      value: `${fixed(q.historyEventsPerWatchPerHour, 2)}; worker ${fixed(q.workerCpuCores, 3)} cores; ${q.cpu}; meanwhile ${q.trainJobChanges} TrainJob changes on the API server (any field)`,
    },
    ...r.batches.flatMap((b): Row[] => [
      {
        section,
        metric: `batch ${b.group} (${b.workers}): Outcome after Complete`,
        value: `p50 ${ms(b.afterComplete.p50)}, p99 ${ms(b.afterComplete.p99)}, max of ${b.afterComplete.n}; ${b.wrong.length ? `${b.wrong.length} wrong (${b.wrong.slice(0, 3).join('; ')})` : 'all Succeeded'}`,
        target: 'p50 ≤ 1 s, p99 ≤ 2 s',
        met: b.wrong.length === 0 && b.afterComplete.p50 <= 1000 && b.afterComplete.p99 <= 2000,
      },
      {
        section,
        metric: `  batch ${b.group}: wakes and reads per Watch`,
        value: `wakes median ${fixed(b.wakes.p50, 0)}, max ${fixed(b.wakes.max, 0)}; reads median ${fixed(b.reads.p50, 0)}, max ${fixed(b.reads.max, 0)}`,
      },
    ]),
    {
      section,
      metric: 'the rest deleted: Outcome (Absent) after the delete',
      value: `${r.drain.deleted} deleted in ${fixed(r.drain.seconds, 0)} s; p50 ${ms(r.drain.afterDelete.p50)}, p99 ${ms(r.drain.afterDelete.p99)}${r.drain.deleteFailures.length ? `; delete failures: ${r.drain.deleteFailures.join('; ')}` : ''}`,
    },
  ];
}
