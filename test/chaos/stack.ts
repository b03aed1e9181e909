// The stack a chaos run owns, so that the nemesis may stop any part of it: a cluster of its own
// (etcd, kube-apiserver, controller manager, scheduler, KWOK, the real JobSet, Trainer and Kueue),
// a Temporal dev server of its own keeping its state in a SQLite file (so it can be restarted), the
// fault proxy in front of the API server (the workers' only way to it), and two worker processes
// per mode (plain and Kueue), each mode on a task queue of its own, in one namespace.
//
// With `multiKueue` (--multikueue, docs/multikueue.md): the cluster is MultiKueue's manager, a second
// complete cluster its worker cluster (dev/harness/multikueue.ts), and a second fault proxy stands in
// front of the worker cluster's API server: the workers' kubeconfig for it (kueue.multiKueue) goes
// through that proxy, so its faults hit dispatch's calls there (step 5's copies, the collector,
// Watch's pod reads) and not Kueue's MultiKueue, which reaches the worker cluster directly. The
// workers reach it as the shipped worker-cluster RBAC's ServiceAccount (worker-identity.ts). Kueue
// mode only (kueue.multiKueue needs it): two workers, one task queue.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createKubeClients, type KubeClients } from '../../src/kube/clients.js';
import { DispatchKubeflowClient } from '../../src/client/dispatch-client.js';
import { parseConfig } from '../../src/config/load-config.js';
import type { Config } from '../../src/model/config.js';
import { serverBinaries } from '../../dev/harness/binaries.js';
import { adminAccess, startCluster, type LocalCluster } from '../../dev/harness/cluster.js';
import { FaultProxy } from '../../dev/harness/fault-proxy.js';
import { kubeConfigFor, kubeconfigYaml, type KubeAccess } from '../../dev/harness/kube-access.js';
import { freePorts, signalGroup, stopServer } from '../../dev/harness/process.js';
import { applyKueueSamples, applySamples, KUEUE_SAMPLE_CHECK, KUEUE_SAMPLE_QUEUE } from '../../dev/harness/samples.js';
import { connectWorkers, MULTIKUEUE_MANAGER_KUEUE, startWorkers, untilLocalQueueSeen } from '../../dev/harness/multikueue.js';
import { crdDirs } from '../../dev/harness/stack.js';
import { startDevTemporal, type DevTemporal } from '../../dev/harness/temporal.js';
import { failWith, runFor } from '../integration/operations/support.js';
import { runtimeFixtures, type RuntimeRef } from '../integration/support/runtimes.js';
import { bundleFile, startWorkerProcess, type WorkerProcess } from '../reliability/support/worker-handle.js';
import { brokenWorkerEnv, type Broken } from './broken-worker.js';
import type { Mode } from './schedule.js';
import { WORKER_RBAC_FILE, workerClusterIdentity } from './worker-identity.js';

/** CallBound of the run's configurations: every outage the schedule makes fits in it (nemesis.ts UP_BETWEEN_MS). */
export const CHAOS_CALL = '30s';
export const CHAOS_CALL_MS = 30_000;
/**
 * The configurations' timeouts.workload: how long Start's step 9 (and the probe's) waits for the
 * Workload. Kueue makes the Workload, and the schedule may restart Kueue twice within a minute
 * (down up to 4 s, its start ~10 s on 2 cores, up 15 s between: nemesis.ts UP_BETWEEN_MS); an
 * operator sizes the bound past their Kueue's restarts, as this does past the schedule's. With
 * 60 s, a Start caught by two Kueue restarts was refused at step 9 for a Workload Kueue had not
 * yet made (the short schedule, 2026-12-02).
 */
export const CHAOS_WORKLOAD_MS = 120_000;
/** Each worker's bound on one HTTP request, so that a held or hung answer is given up on soon. */
const REQUEST_TIMEOUT_MS = 5_000;
const NAMESPACE = 'chaos';
const WORKERS_PER_MODE = 2;
/** The exit code of the `fail` runtime's node container. */
export const CHAOS_FAIL_EXIT_CODE = 3;

export interface WorkerSlot {
  mode: Mode;
  index: number;
  process?: WorkerProcess;
  /** Processes started in this slot so far (each one's log is its own). */
  generation: number;
}

/** The MultiKueue run's worker cluster: the cluster, its admin access (straight, for the audit) and the fault proxy dispatch reaches it through. */
export interface ChaosWorkerCluster {
  /** Its MultiKueueCluster's name, what a Workload's status.clusterName and an Outcome's `cluster` say. */
  name: string;
  cluster: LocalCluster;
  admin: KubeAccess;
  proxy: FaultProxy;
}

export interface ChaosStack {
  cluster: LocalCluster;
  /** With --multikueue: the worker cluster. */
  workerCluster?: ChaosWorkerCluster;
  /** The modes the run's workers serve: plain and Kueue, or Kueue alone with MultiKueue. */
  modes: readonly Mode[];
  admin: KubeAccess;
  /** Admin clients straight to the API server (Find, the final snapshot). */
  kube: KubeClients;
  namespace: string;
  proxy: FaultProxy;
  configs: Partial<Record<Mode, Config>>;
  clients: Record<Mode, DispatchKubeflowClient>;
  temporalClient: Client;
  runtimes: Record<'short' | 'long' | 'fail', RuntimeRef>;
  workers: WorkerSlot[];
  startWorker(slot: WorkerSlot): Promise<void>;
  killWorker(slot: WorkerSlot): Promise<void>;
  /** Stops the Temporal server with `signal`; startTemporal() brings it back on the same port and file. */
  stopTemporal(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  startTemporal(): Promise<void>;
  stop(): Promise<void>;
}

export async function startChaosStack(options: { stateDir: string; logDir: string; log: (line: string) => void; broken?: Broken; multiKueue?: boolean }): Promise<ChaosStack> {
  const { stateDir, logDir, log } = options;
  const modes: readonly Mode[] = options.multiKueue ? ['kueue'] : ['plain', 'kueue'];
  mkdirSync(logDir, { recursive: true });
  // Built from the Go module proxy on the first run (with progress), then cached by version.
  const binaries = await serverBinaries();
  const t0 = Date.now();
  const cluster = await startCluster({
    binaries,
    stateDir: join(stateDir, 'cluster'),
    logDir: join(logDir, 'cluster'),
    namespace: NAMESPACE,
    crdDirs: crdDirs(),
    // Room for many one-GPU jobs at once.
    nodes: 4,
    lifeline: process.pid,
    ...(options.multiKueue ? { kueueSettings: MULTIKUEUE_MANAGER_KUEUE } : {}),
  });
  const admin = adminAccess(cluster.info);
  await applySamples(admin);
  await applyKueueSamples(admin, [NAMESPACE]);
  log(`cluster up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const worker = options.multiKueue ? await startWorkerCluster(admin, { stateDir, logDir, binaries }) : undefined;
  if (worker) log(`worker cluster ${worker.name} up and Active on the manager, ${((Date.now() - t0) / 1000).toFixed(1)} s from the start`);

  const [port, uiPort, httpPort] = (await freePorts(3)) as [number, number, number];
  const launchTemporal = () =>
    startDevTemporal({ binary: binaries.temporal, logDir: join(logDir, 'temporal'), port, uiPort, httpPort, dbFile: join(stateDir, 'temporal.db'), lifeline: process.pid });
  mkdirSync(join(logDir, 'temporal'), { recursive: true });
  let temporal: DevTemporal | undefined = await launchTemporal();
  const connection = await Connection.connect({ address: temporal.address });
  const temporalClient = new Client({ connection, namespace: 'default' });
  log(`Temporal at ${temporal.address}, its UI at ${temporal.uiUrl}`);

  const kube = createKubeClients(kubeConfigFor({ ...admin, namespace: NAMESPACE }));
  const fixtures = runtimeFixtures(kube);
  const runtimes = {
    short: await fixtures.namespaced(NAMESPACE, 'chaos-short', runFor('2s')),
    long: await fixtures.namespaced(NAMESPACE, 'chaos-long', runFor('60s')),
    fail: await fixtures.namespaced(NAMESPACE, 'chaos-fail', failWith(CHAOS_FAIL_EXIT_CODE)),
  };

  const proxy = await FaultProxy.start(admin);
  const kubeconfig = join(stateDir, 'kubeconfig-proxy');
  writeFileSync(kubeconfig, kubeconfigYaml(proxy.accessFor({ ...admin, namespace: NAMESPACE })), { mode: 0o600 });
  // The worker cluster through its proxy, as the configuration's kueue.multiKueue names it.
  let workerCluster: ChaosWorkerCluster | undefined;
  const workerKubeconfig = join(stateDir, 'kubeconfig-worker-cluster-proxy');
  if (worker) {
    const workerProxy = await FaultProxy.start(worker.admin);
    // As the shipped worker-cluster RBAC's ServiceAccount, not the admin (worker-identity.ts).
    const identity = await workerClusterIdentity(worker.admin, NAMESPACE);
    log(`worker cluster ${worker.name} reached as ${identity.user} (${relative(process.cwd(), WORKER_RBAC_FILE)})`);
    writeFileSync(workerKubeconfig, kubeconfigYaml(workerProxy.accessFor(identity)), { mode: 0o600 });
    workerCluster = { ...worker, proxy: workerProxy };
  }
  const configFor = (mode: Mode) =>
    parseConfig({
      namespace: NAMESPACE,
      kubeconfig,
      mode,
      timeouts: { call: CHAOS_CALL, workload: `${CHAOS_WORKLOAD_MS / 1000}s` },
      temporal: { taskQueue: `chaos-${mode}` },
      ...(mode === 'kueue'
        ? {
            kueue: {
              queue: KUEUE_SAMPLE_QUEUE,
              admissionCheck: KUEUE_SAMPLE_CHECK,
              ...(worker ? { multiKueue: { clusters: [{ name: worker.name, kubeconfig: workerKubeconfig }] } } : {}),
            },
          }
        : {}),
    });
  const configs: Partial<Record<Mode, Config>> = Object.fromEntries(modes.map((mode) => [mode, configFor(mode)]));
  const clients = {
    plain: new DispatchKubeflowClient(temporalClient, { namespace: NAMESPACE, taskQueue: 'chaos-plain' }),
    kueue: new DispatchKubeflowClient(temporalClient, { namespace: NAMESPACE, taskQueue: 'chaos-kueue' }),
  };

  const bundlePath = await bundleFile(join(logDir, 'workers'));
  const workers: WorkerSlot[] = modes.flatMap((mode) => Array.from({ length: WORKERS_PER_MODE }, (_, index) => ({ mode, index, generation: 0 })));
  const startWorker = async (slot: WorkerSlot) => {
    slot.generation += 1;
    slot.process = await startWorkerProcess({
      config: configs[slot.mode]!,
      temporalAddress: `127.0.0.1:${port}`,
      bundlePath,
      logDir: join(logDir, 'workers'),
      name: `${slot.mode}-${slot.index}-${slot.generation}`,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      // As production runs it: its own preflight loop and, in Kueue mode, the admission check controller.
      gates: 'product',
      // Or broken on purpose, to see the checker fail it.
      ...(options.broken ? { env: brokenWorkerEnv(options.broken) } : {}),
    });
  };
  const killWorker = async (slot: WorkerSlot) => {
    await slot.process?.kill();
    slot.process = undefined;
  };
  await Promise.all(workers.map(startWorker));
  log(`${workers.length} workers polling (${modes.map((m) => `${m}: ${configs[m]!.temporal.taskQueue}`).join(', ')})`);

  return {
    cluster,
    ...(workerCluster ? { workerCluster } : {}),
    modes,
    admin,
    kube,
    namespace: NAMESPACE,
    proxy,
    configs,
    clients,
    temporalClient,
    runtimes,
    workers,
    startWorker,
    killWorker,
    async stopTemporal(signal) {
      if (!temporal) return;
      if (signal === 'SIGKILL') signalGroup(temporal.process.pid, 'SIGKILL');
      await stopServer(temporal.process);
      temporal = undefined;
    },
    async startTemporal() {
      temporal ??= await launchTemporal();
    },
    async stop() {
      await Promise.all(workers.map(killWorker));
      await connection.close().catch(() => undefined);
      if (temporal) await stopServer(temporal.process);
      await proxy.close();
      await workerCluster?.proxy.close();
      await workerCluster?.cluster.stop();
      await cluster.stop();
    },
  };
}

/**
 * The MultiKueue run's worker cluster (dev/harness/multikueue.ts), connected to the manager at
 * `admin`, with the run's namespace and its LocalQueue on both; resolves once Kueue on each cluster
 * has taken the LocalQueue in (its webhook sets MultiKueue's managedBy only for a LocalQueue it
 * knows: a TrainJob made before would run on the manager).
 */
async function startWorkerCluster(
  admin: KubeAccess,
  where: { stateDir: string; logDir: string; binaries: Awaited<ReturnType<typeof serverBinaries>> },
): Promise<Omit<ChaosWorkerCluster, 'proxy'>> {
  const [started] = await startWorkers(1, {
    binaries: where.binaries,
    stateDir: where.stateDir,
    logDir: join(where.logDir, 'cluster'),
    namespace: NAMESPACE,
    crdDirs: crdDirs(),
    nodes: 4,
    lifeline: process.pid,
  });
  const { name, cluster } = started!;
  const workerAdmin = adminAccess(cluster.info);
  await connectWorkers(admin, [{ name, kube: cluster.info }], { namespaces: [NAMESPACE] });
  await untilLocalQueueSeen([admin, workerAdmin], NAMESPACE);
  return { name, cluster, admin: workerAdmin };
}
