// The dispatch-kubeflow worker: serves the workflows and activities on the configured task queue, keeps
// the backend gates current (the preflight), in Kueue mode runs dispatch's admission check controller (§9),
// and stops cleanly on SIGTERM/SIGINT: no more polling, held activities end within the drain grace (§10).
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { BatchedLists } from '../kube/batched-lists.js';
import { createActivities } from '../activities/index.js';
import { MultiKueueClusterReads } from '../activities/worker-cluster-reads.js';
import { WatchedLists } from '../kube/watched-lists.js';
import { clusterClients, type ClusterClientOptions } from './cluster-clients.js';
import type { ExitCodeMemory } from './exit-code-memory.js';
import type { WorkerPodWatch } from './worker-pod-watch.js';
import { SettingsSource } from '../activities/settings-activities.js';
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { drainTimes, type DrainTimes } from '../core/drain.js';
import { createAdmissionController, type AdmissionController } from './admission-controller.js';
import { log } from '../observability/log.js';
import { preflightLoop, runPreflight } from './preflight.js';
import { workflowCode } from './workflow-code.js';
import type { DataConverter, WorkerDeploymentVersion } from '@temporalio/common';
import { DEFAULT_VERSIONING_BEHAVIOR } from '../contract/versioning.js';
import type { ActivityInterceptorsFactory, WorkerPlugin } from '@temporalio/worker';
import { DEFAULT_WORKER_TUNING, type WorkerTuning } from './worker-tuning.js';
import { metricsWorkerOptions } from '../observability/interceptors.js';
import { createDispatchMetrics, type DispatchMetrics } from '../observability/metrics.js';
import { openWorkflowCounter } from '../observability/open-workflows.js';
import { stepOfActivity } from '../observability/steps.js';
import { createWatchWaker, wakerWorkerClusters, type WatchWaker } from './watch-waker.js';
import { runningWatches } from './running-watches.js';
import { signalWake } from './wake-signal.js';
import type { QueueSharingCheck } from './queue-sharing.js';
import { releaseIsolation } from './release-isolation.js';

export const DEFAULT_PREFLIGHT_INTERVAL_MS = 5 * 60_000;

export { DEFAULT_WORKER_TUNING, type WorkerTuning } from './worker-tuning.js';

export interface DispatchWorkerOptions extends ClusterClientOptions {
  config: Config;
  connection: NativeConnection;
  /** The Temporal namespace. */
  namespace: string;
  /** A client on the same Temporal, for the preflight's ProbeBackend. */
  client: Client;
  preflightIntervalMs?: number;
  /** Overrides the per-request bound of Kubernetes calls (default min(10 s, timeouts.call)). */
  requestTimeoutMs?: number;
  workflowBundlePath?: string;
  /** A workflow bundle already built in this process (tests build one and share it). */
  workflowBundle?: { code: string };
  /** The codec's data converter (codec/index.ts); the preflight's client must have the same. */
  dataConverter?: DataConverter;
  /** dispatch's Prometheus metrics (default: a registry of its own); observability/metrics-server.ts serves them. */
  metrics?: DispatchMetrics;
  /** Worker plugins, e.g. tracing's (observability/tracing.ts). */
  plugins?: WorkerPlugin[];
  /** Overrides DEFAULT_WORKER_TUNING, field by field. */
  tuning?: WorkerTuning;
  /** Activity interceptors after dispatch's own (tests record what each activity was given). */
  activityInterceptors?: ActivityInterceptorsFactory[];
  /**
   * Kueue mode: run dispatch's admission check controller (default true); false for a worker that
   * must leave Kueue's objects alone (e.g. beside a test's stand-in Kueue). Plain mode has none.
   */
  admissionController?: boolean;
  /** Time between two passes of the admission check controller (default 1 s). */
  admissionIntervalMs?: number;
  /** Time between two reads of the task queue's pollers (default DEFAULT_QUEUE_CHECK_INTERVAL_MS). */
  queueCheckIntervalMs?: number;
  /**
   * This worker's build in a Temporal worker deployment (docs/versioning.md): with it, the worker
   * is versioned, each workflow type with its behavior (contract/versioning.ts); without, unversioned.
   */
  deploymentVersion?: WorkerDeploymentVersion;
}

export interface DispatchWorker {
  worker: Worker;
  gates: SettingsSource;
  metrics: DispatchMetrics;
  /** The checks' watch-fed lists (step 9's waits, Watch), when the kube clients can watch. */
  checks?: WatchedLists;
  /** dispatch's admission check controller: Kueue mode only, unless turned off. run() runs it. */
  admissionController?: AdmissionController;
  /** Wakes the Watches of the TrainJobs that change (docs/contract.md §9b), when the kube clients can watch. run() runs it. */
  waker?: WatchWaker;
  /** MultiKueue: the watch of the worker clusters' pods that feeds `exitCodes` (docs/multikueue.md). run() runs it. */
  podWatch?: WorkerPodWatch;
  /** MultiKueue: the failed node containers that watch saw, which Watch reads. */
  exitCodes?: ExitCodeMemory;
  /** How long a stopped worker lets its activities run, and when it gives up on them (from the configuration). */
  drain: DrainTimes;
  /** Whether workers of another namespace poll this worker's task queue (docs/contract.md §10). run() runs it. */
  queueSharing: QueueSharingCheck;
  /** Runs the worker, the preflight loop and the admission check controller until shutdown. */
  run(): Promise<void>;
  /** Runs one preflight now and waits for its gates. */
  preflight(): ReturnType<typeof runPreflight>;
  shutdown(): void;
}

export async function createDispatchWorker(options: DispatchWorkerOptions): Promise<DispatchWorker> {
  const { config } = options;
  const { kube, workerClusters, copyCollector, exitCodes, podWatch } = clusterClients(config, options);
  const gates = new SettingsSource(config);
  const callMs = toMillis(parseGoDuration(config.timeouts.call)!);
  const requestTimeoutMs = options.requestTimeoutMs ?? Math.min(10_000, callMs);
  // The Workload waits, the Watches and the admission check controller read a watch-fed copy,
  // and list (batched, for the checks) while it is not in step.
  const batched = new BatchedLists(kube, requestTimeoutMs);
  const lists = kube.watch ? new WatchedLists(kube, kube.watch, batched, requestTimeoutMs) : undefined;
  const metrics = options.metrics ?? createDispatchMetrics();
  const release = releaseIsolation({
    client: options.client,
    temporalNamespace: options.namespace,
    config,
    metrics,
    ...(options.queueCheckIntervalMs !== undefined ? { queueCheckIntervalMs: options.queueCheckIntervalMs } : {}),
  });
  // One per worker: the Watch waker's polls read anew through it, and the Watches they wake read that.
  const clusterReads = new MultiKueueClusterReads(kube, requestTimeoutMs);
  const activities = createActivities({
    kube,
    clusterReads,
    workerClusters,
    ...(exitCodes ? { exitCodes } : {}),
    settings: gates,
    requestTimeoutMs,
    lists: lists ?? batched,
    countWatchUnanswered: (call, status) =>
      status === undefined ? metrics.watchUnanswered.inc({ call }) : metrics.watchRefused.inc({ call, status: String(status) }),
    timeStep: (activity) => metrics.stepDuration.startTimer({ step: stepOfActivity(activity) }),
    onForeignWorkflow: release.onForeignWorkflow,
  });
  const admissionController =
    config.mode === 'kueue' && options.admissionController !== false
      ? createAdmissionController({
          kube,
          config,
          requestTimeoutMs,
          log,
          ...(lists ? { lists } : {}),
          ...(options.admissionIntervalMs !== undefined ? { intervalMs: options.admissionIntervalMs } : {}),
        })
      : undefined;
  const waker = lists
    ? createWatchWaker({
        config,
        lists,
        signal: signalWake(options.client),
        runningWatches: runningWatches(options.client),
        count: (result) => metrics.watchWakes.inc({ result }),
        log,
        ...wakerWorkerClusters([...workerClusters.keys()], clusterReads, config),
      })
    : undefined;
  const taskQueue = config.temporal.taskQueue;
  const { queueSharing } = release;
  metrics.observe({
    gates: () => gates.latestGates(),
    ...(workerClusters.size > 0 ? { workerClusters: [...workerClusters.keys()] } : {}),
    ...(podWatch ? { podFeeds: () => podWatch.inStep() } : {}),
    openWorkflows: openWorkflowCounter(options.client, taskQueue, log),
    ...(admissionController ? { admission: () => admissionController.counters } : {}),
  });
  const code = options.workflowBundle
    ? { workflowBundle: options.workflowBundle }
    : workflowCode(options.workflowBundlePath);
  const observed = metricsWorkerOptions(metrics, 'workflowsPath' in code);
  // The SDK's default grace is 0: SIGTERM would cancel a Start's Workload wait at once, to be
  // retried elsewhere, while the pod's termination grace went unused. No shutdownForceTime: the
  // SDK's forced end (1.24) left the process hung after a panic in Core (seen with a delete in
  // flight), so the process that owns the worker ends itself at drain.forceMs (cli/worker-command.ts).
  const drain = drainTimes(config.timeouts);
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue,
    // Names this worker's namespace to the other pollers of the queue (queue-sharing.ts).
    identity: release.identity,
    ...(options.deploymentVersion
      ? { workerDeploymentOptions: { version: options.deploymentVersion, useWorkerVersioning: true, defaultVersioningBehavior: DEFAULT_VERSIONING_BEHAVIOR } }
      : {}),
    activities,
    shutdownGraceTime: drain.graceMs,
    ...DEFAULT_WORKER_TUNING,
    ...options.tuning,
    ...code,
    ...observed,
    interceptors: {
      ...observed.interceptors,
      activity: [...(observed.interceptors?.activity ?? []), ...(options.activityInterceptors ?? [])],
    },
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
  });
  const stopLoops = new AbortController();
  return {
    worker,
    gates,
    metrics,
    drain,
    ...(admissionController ? { admissionController } : {}),
    ...(lists ? { checks: lists } : {}),
    ...(waker ? { waker } : {}),
    ...(podWatch ? { podWatch } : {}),
    ...(exitCodes ? { exitCodes } : {}),
    queueSharing,
    preflight: () => runPreflight(options.client, taskQueue, gates),
    async run() {
      const running = worker.run();
      const loop = preflightLoop(
        options.client,
        taskQueue,
        gates,
        options.preflightIntervalMs ?? DEFAULT_PREFLIGHT_INTERVAL_MS,
        stopLoops.signal,
        log,
      );
      const controlling = admissionController?.run(stopLoops.signal);
      const waking = waker?.run(stopLoops.signal);
      const sharing = queueSharing.run(stopLoops.signal);
      const collecting = copyCollector?.run(stopLoops.signal);
      const watchingPods = podWatch?.run(stopLoops.signal);
      try {
        await running;
      } finally {
        stopLoops.abort();
        lists?.close();
        await Promise.all([loop, controlling, waking, sharing, collecting, watchingPods]);
      }
    },
    shutdown() {
      stopLoops.abort();
      // Idempotent: a signal may have stopped the Temporal worker already (the SDK's runtime).
      if (worker.getState() === 'RUNNING') worker.shutdown();
    },
  };
}
