// The whole local stack: a Temporal dev server and the local cluster, started side by side, with
// the sample runtimes applied. Two flavours: a test run's (ephemeral, tied to the test runner's
// life, through @temporalio/testing) and dev:up's (detached, UI on, recorded under .dev/).
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverBinaries, type ServerBinaries } from './binaries.js';
import { adminAccess, startCluster, type ClusterInfo, type ClusterTimings, type LocalCluster } from './cluster.js';
import { allCrdDirs } from './crd-sources.js';
import { logsDir } from './paths.js';
import { freePorts, isAlive, killStartedServers, portIsFree, stopServer } from './process.js';
import { activateAdmissionCheck, applyKueueSamples, applySamples, KUEUE_SAMPLE_CHECK } from './samples.js';
import { connectWorkers, multiKueueInfo, MULTIKUEUE_MANAGER_KUEUE, startWorkers, type MultiKueueInfo, type WorkerClusterInfo } from './multikueue.js';
import { postgresTemporalBinaries, startPostgresTemporal, type PostgresInfo } from './postgres.js';
import { createLocalTemporal, startDevTemporal, TEMPORAL_NAMESPACE, type DevTemporal } from './temporal.js';

export interface TemporalInfo {
  /** host:port of the frontend. */
  address: string;
  namespace: string;
  /** The web UI, when it runs (dev:up). */
  uiUrl?: string;
  /** Path of the temporal CLI binary (TEMPORAL_CLI). */
  cli: string;
  /** Temporal on PostgreSQL (temporal-server; dev/harness/postgres.ts): its database. Absent for the dev server. */
  postgres?: PostgresInfo;
}

/** The Temporal server a stack runs: the CLI's dev server (default), or temporal-server on PostgreSQL. */
export type TemporalKind = 'dev' | 'postgres';

/** Temporal on PostgreSQL for a stack, its data in <tmp>/<prefix><random>. */
async function postgresTemporal(options: { cli: string; dataPrefix: string; logDir: string; lifeline?: number; detach?: boolean }) {
  const binaries = await postgresTemporalBinaries(options.cli);
  const started = await startPostgresTemporal({
    binaries,
    dataDir: mkdtempSync(join(tmpdir(), options.dataPrefix)),
    logDir: options.logDir,
    lifeline: options.lifeline,
    detach: options.detach,
  });
  return { ...started, binaries };
}

/** Everything a test or a developer needs to reach the stack: plain data. */
export interface StackInfo {
  kube: ClusterInfo;
  temporal: TemporalInfo;
  /** Where every server's log is. */
  logDir: string;
  /** "<Kind>/<name>" of the sample runtimes applied. */
  samples: string[];
  /**
   * A MultiKueue stack's worker clusters (option `multiKueue`; dev/harness/multikueue.ts): `kube`
   * is then the manager. Absent on a one-cluster stack.
   */
  workers?: WorkerClusterInfo[];
  /** A MultiKueue stack's names on the manager (AdmissionCheck, MultiKueueConfig, Secret namespace). */
  multiKueue?: MultiKueueInfo;
}

/** A MultiKueue stack: how many worker clusters beside the manager. */
export interface MultiKueueOption {
  workers: number;
}

type StartedWorkers = Awaited<ReturnType<typeof startWorkers>>;

/**
 * When each part was ready, in milliseconds from the moment the servers were launched (the
 * binaries found); `total` also counts finding the binaries and applying the samples.
 */
export interface StackTimings extends ClusterTimings {
  temporal: number;
  total: number;
}

export interface Stack {
  info: StackInfo;
  timings: StackTimings;
  /**
   * A MultiKueue stack's worker clusters with their process controls (in StackInfo.workers order),
   * for the tests that take one away (its API server stopped and started again).
   */
  workerClusters?: readonly { name: string; cluster: LocalCluster }[];
  stop(): Promise<void>;
}

export const DEFAULT_NAMESPACE = 'dispatch';

export const crdDirs = allCrdDirs;

async function startBoth<T extends { stop(): Promise<void> }>(
  temporal: Promise<T>,
  cluster: Promise<LocalCluster>,
): Promise<[T, LocalCluster, number, number]> {
  const t0 = Date.now();
  const timed = <V>(p: Promise<V>) => p.then((v) => [v, Date.now() - t0] as const);
  const [t, c] = await Promise.allSettled([timed(temporal), timed(cluster)]);
  if (t.status === 'fulfilled' && c.status === 'fulfilled') return [t.value[0], c.value[0], t.value[1], c.value[1]];
  // One failed: stop the other rather than leave it running.
  if (t.status === 'fulfilled') await t.value[0].stop();
  if (c.status === 'fulfilled') await c.value[0].stop();
  throw t.status === 'rejected' ? t.reason : (c as PromiseRejectedResult).reason;
}

/** Applies the samples to a started stack and assembles its description; stops it on failure. */
async function finishStack(parts: {
  t0: number;
  kube: LocalCluster;
  temporal: TemporalInfo;
  tTemporal: number;
  logDir: string;
  stop: () => Promise<void>;
  /** A MultiKueue stack's workers, connected to the manager once its samples are applied. */
  workers?: StartedWorkers;
  /**
   * Set the sample AdmissionCheck Active, as its controller would. Only where no dispatch worker
   * runs: dev:up's stack. A test run's Kueue-mode workers run dispatch's admission check controller
   * (docs/contract.md §9), which keeps it Active, and the tests rely on that.
   */
  activateAdmissionCheck?: boolean;
}): Promise<Stack> {
  const { kube, stop } = parts;
  try {
    const admin = adminAccess(kube.info);
    const samples = [...(await applySamples(admin)), ...(await applyKueueSamples(admin, [kube.info.namespace]))];
    const workers = parts.workers?.map((w) => ({ name: w.name, kube: w.cluster.info, timings: w.cluster.timings }));
    if (workers) await connectWorkers(admin, workers, { namespaces: [kube.info.namespace] });
    if (parts.activateAdmissionCheck) await activateAdmissionCheck(admin, KUEUE_SAMPLE_CHECK);
    return {
      info: { kube: kube.info, temporal: parts.temporal, logDir: parts.logDir, samples, ...(workers ? { workers, multiKueue: multiKueueInfo() } : {}) },
      timings: { ...kube.timings, temporal: parts.tTemporal, total: Date.now() - parts.t0 },
      ...(parts.workers ? { workerClusters: parts.workers } : {}),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Keeps the newest `keep` test-run log folders. */
function pruneTestLogs(keep: number): void {
  let runs: string[];
  try {
    runs = readdirSync(logsDir).filter((d) => d.startsWith('test-')).sort();
  } catch {
    return;
  }
  // A run's folder ends in its pid: never remove the logs of a run that is still going.
  const finished = runs.filter((d) => {
    const pid = Number(/-(\d+)$/.exec(d)?.[1] ?? 0);
    return !(pid > 0 && isAlive(pid));
  });
  for (const old of finished.slice(0, Math.max(0, finished.length - keep))) rmSync(join(logsDir, old), { recursive: true, force: true });
}

/** A test run's data (etcd, certificates, kubeconfigs) is in <tmp>/dispatch-kubeflow-<pid>-<random>. */
const STATE_DIR_PREFIX = 'dispatch-kubeflow-';

/** Removes the data of test runs whose process is gone without cleaning up (killed with SIGKILL). */
function pruneStaleStateDirs(): void {
  for (const entry of readdirSync(tmpdir())) {
    const pid = Number(/^dispatch-kubeflow-(\d+)-/.exec(entry)?.[1]);
    if (pid && !isAlive(pid)) rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

/**
 * Until the returned function is called, SIGINT, SIGTERM and exit kill every server this process
 * started. Node would exit on the signal were nobody listening; without other listeners it still does.
 */
export function killServersOnExit(cleanUp: () => void = () => undefined): () => void {
  const kill = () => {
    killStartedServers();
    cleanUp();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    kill();
    if (process.listenerCount(signal) === 0) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  process.once('exit', kill);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('exit', kill);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/**
 * A test run's stack: one cluster and one ephemeral Temporal server, both stopped by `stop()`, by
 * SIGINT/SIGTERM or exit of this process, and (through their lifeline) by its death.
 */
export async function startTestStack(
  options: {
    binaries?: ServerBinaries;
    namespace?: string;
    temporalDynamicConfig?: Readonly<Record<string, number | boolean>>;
    /** Run the real Kueue (default true); without it, Kueue mode is served by a stand-in. */
    kueue?: boolean;
    /** Default 'dev'; 'postgres' ignores temporalDynamicConfig (deploy/temporal/config/dynamicconfig/ holds its own). */
    temporal?: TemporalKind;
    /** Worker clusters beside this one, which becomes their MultiKueue manager (dev/harness/multikueue.ts). */
    multiKueue?: MultiKueueOption;
  } = {},
): Promise<Stack> {
  const t0 = Date.now();
  const binaries = options.binaries ?? (await serverBinaries());
  pruneTestLogs(5);
  const logDir = join(logsDir, `test-${stamp()}-${process.pid}`);
  mkdirSync(logDir, { recursive: true });
  pruneStaleStateDirs();
  const stateDir = mkdtempSync(join(tmpdir(), `${STATE_DIR_PREFIX}${process.pid}-`));
  const lifeline = process.pid;
  const removeState = () => rmSync(stateDir, { recursive: true, force: true });
  const unhook = killServersOnExit(removeState);

  const temporal: Promise<{ address: string; postgres?: PostgresInfo; stop(): Promise<void> }> =
    options.temporal === 'postgres'
      ? postgresTemporal({ cli: binaries.temporal, dataPrefix: `${STATE_DIR_PREFIX}${process.pid}-postgres-`, logDir, lifeline }).then(
          (t) => ({ address: t.address, postgres: t.postgres.info, stop: t.stop }),
        )
      : createLocalTemporal({
          binary: binaries.temporal,
          logDir,
          lifeline,
          ...(options.temporalDynamicConfig ? { dynamicConfig: options.temporalDynamicConfig } : {}),
        }).then((env) => ({ address: env.address, stop: () => env.teardown() }));
  const cluster = startCluster({
    binaries,
    stateDir,
    logDir,
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
    crdDirs: crdDirs(),
    lifeline,
    ...(options.kueue === false ? { kueue: false } : {}),
    ...(options.multiKueue ? { kueueSettings: MULTIKUEUE_MANAGER_KUEUE } : {}),
  });
  let t: Awaited<typeof temporal>;
  let kube: LocalCluster;
  let tTemporal: number;
  let workers: StartedWorkers | undefined;
  try {
    [t, kube, tTemporal] = await startBoth(temporal, cluster);
  } catch (err) {
    unhook();
    removeState();
    throw err;
  }
  if (options.multiKueue) {
    const namespace = options.namespace ?? DEFAULT_NAMESPACE;
    try {
      workers = await startWorkers(options.multiKueue.workers, { binaries, stateDir, logDir, namespace, crdDirs: crdDirs(), lifeline });
    } catch (err) {
      await Promise.all([t.stop(), kube.stop()]);
      unhook();
      removeState();
      throw err;
    }
  }
  const stop = async () => {
    await Promise.all([t.stop(), kube.stop(), ...(workers ?? []).map((w) => w.cluster.stop())]);
    unhook();
    removeState();
  };
  return finishStack({
    t0,
    kube,
    tTemporal,
    logDir,
    stop,
    ...(workers ? { workers } : {}),
    temporal: { address: t.address, namespace: TEMPORAL_NAMESPACE, cli: binaries.temporal, ...(t.postgres ? { postgres: t.postgres } : {}) },
  });
}

/** The Temporal ports dev:up uses: the CLI's defaults when free, so `temporal` works unconfigured. */
async function devTemporalPorts(): Promise<[number, number]> {
  if ((await portIsFree(7233)) && (await portIsFree(8233))) return [7233, 8233];
  return (await freePorts(2)) as [number, number];
}

/** dev:up's Temporal: the dev server with its UI, or temporal-server on PostgreSQL (no UI). */
async function devTemporal(options: { binaries: ServerBinaries; logDir: string; temporal?: TemporalKind }) {
  if (options.temporal === 'postgres') {
    const t = await postgresTemporal({ cli: options.binaries.temporal, dataPrefix: 'dispatch-kubeflow-dev-postgres-', logDir: options.logDir, detach: true });
    return {
      address: t.address,
      postgres: t.postgres.info,
      stop: t.stop,
      servers: {
        postgres: { pid: t.postgres.process.pid, binary: join(t.binaries.postgresBin, 'postgres') },
        temporal: { pid: t.server.pid, binary: t.binaries.temporalServer },
      },
    };
  }
  const [port, uiPort] = await devTemporalPorts();
  const t: DevTemporal = await startDevTemporal({ binary: options.binaries.temporal, logDir: options.logDir, port, uiPort, detach: true });
  return { address: t.address, uiUrl: t.uiUrl, stop: () => stopServer(t.process), servers: { temporal: { pid: t.process.pid, binary: options.binaries.temporal } } };
}

/** dev:up's stack: detached servers that outlive this process; `stop()` is only for a failed start. */
export async function startDevStack(options: {
  binaries: ServerBinaries;
  stateDir: string;
  logDir: string;
  namespace?: string;
  temporal?: TemporalKind;
  /** Worker clusters beside this one, which becomes their MultiKueue manager; their servers are "<worker>.<server>". */
  multiKueue?: MultiKueueOption;
}): Promise<Stack & { pids: Record<string, number>; binaries: Record<string, string> }> {
  const t0 = Date.now();
  rmSync(options.stateDir, { recursive: true, force: true });
  rmSync(options.logDir, { recursive: true, force: true });
  mkdirSync(options.stateDir, { recursive: true });
  mkdirSync(options.logDir, { recursive: true });
  const temporal = devTemporal(options);
  const cluster = startCluster({
    binaries: options.binaries,
    stateDir: options.stateDir,
    logDir: options.logDir,
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
    crdDirs: crdDirs(),
    detach: true,
    ...(options.multiKueue ? { kueueSettings: MULTIKUEUE_MANAGER_KUEUE } : {}),
  });
  const [t, kube, tTemporal] = await startBoth(temporal, cluster);
  let workers: StartedWorkers | undefined;
  if (options.multiKueue) {
    const namespace = options.namespace ?? DEFAULT_NAMESPACE;
    const where = { stateDir: options.stateDir, logDir: options.logDir };
    workers = await startWorkers(options.multiKueue.workers, { binaries: options.binaries, ...where, namespace, crdDirs: crdDirs(), detach: true }).catch(
      async (err: unknown) => {
        await Promise.all([t.stop(), kube.stop()]);
        throw err;
      },
    );
  }
  const stop = async () => {
    await Promise.all([t.stop(), kube.stop(), ...(workers ?? []).map((w) => w.cluster.stop())]);
  };
  const stack = await finishStack({
    t0,
    kube,
    tTemporal,
    logDir: options.logDir,
    stop,
    ...(workers ? { workers } : {}),
    activateAdmissionCheck: true,
    temporal: {
      address: t.address,
      namespace: TEMPORAL_NAMESPACE,
      cli: options.binaries.temporal,
      ...('uiUrl' in t ? { uiUrl: t.uiUrl } : {}),
      ...('postgres' in t ? { postgres: t.postgres } : {}),
    },
  });
  const servers = Object.entries(t.servers);
  // A worker's servers are recorded as "<worker>.<server>", with the binary of <server>.
  const workerServers = (workers ?? []).flatMap((w) => Object.entries(w.cluster.info.pids).map(([server, pid]) => [`${w.name}.${server}`, server, pid] as const));
  const binaryOf = options.binaries as unknown as Record<string, string>;
  return {
    ...stack,
    pids: {
      ...Object.fromEntries(servers.map(([name, s]) => [name, s.pid])),
      ...kube.info.pids,
      ...Object.fromEntries(workerServers.filter(([, , pid]) => pid > 0).map(([name, , pid]) => [name, pid])),
    },
    binaries: {
      ...Object.fromEntries(servers.map(([name, s]) => [name, s.binary])),
      ...Object.fromEntries(workerServers.map(([name, server]) => [name, binaryOf[server] ?? ''])),
    },
  };
}
