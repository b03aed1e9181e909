// dev:up, dev:down and dev:status: the stack for a developer (and the embedded default), left
// running in the background. What runs is recorded in .dev/dev-stack.json; .dev/env tells a
// shell (or the product) how to reach it.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serverBinaries } from './binaries.js';
import { adminAccess } from './cluster.js';
import { kubeRequest } from './kube-access.js';
import { devDir, logsDir } from './paths.js';
import { isAlive, stopServer } from './process.js';
import { stopPostgres } from './postgres.js';
import { killServersOnExit, startDevStack, type MultiKueueOption, type StackInfo, type StackTimings, type TemporalKind } from './stack.js';
import { answers200 } from './health.js';
import { temporalReady } from './temporal.js';

export const devPaths = {
  state: join(devDir, 'dev-stack.json'),
  env: join(devDir, 'env'),
  cluster: join(devDir, 'cluster'),
  logs: join(logsDir, 'dev'),
};

interface RecordedServer {
  pid: number;
  /** The binary, to tell our server from an unrelated process that reused its pid. */
  binary: string;
}

export interface DevState {
  info: StackInfo;
  servers: Record<string, RecordedServer>;
  timings: StackTimings;
  startedAt: string;
}

/** The cluster stops top-down, etcd last; Temporal stops alongside. */
const CLUSTER_STOP_ORDER = ['kueue', 'trainer', 'jobset', 'kwok', 'kubeScheduler', 'kubeControllerManager', 'kubeApiserver', 'etcd'];

/** A MultiKueue stack's worker servers are recorded as "<worker>.<server>" (startDevStack). */
const workerPrefixes = (state: DevState | undefined): string[] => (state?.info.workers ?? []).map((w) => `${w.name}.`);

/** The variable of .dev/env that holds worker i's admin kubeconfig (from 1). */
export const workerKubeconfigVar = (i: number): string => `MULTIKUEUE_WORKER_${i}_KUBECONFIG`;

export function readDevState(): DevState | undefined {
  try {
    return JSON.parse(readFileSync(devPaths.state, 'utf8')) as DevState;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is alive and runs `binary` (a recycled pid is not ours). */
function isOurs(server: RecordedServer): boolean {
  if (!isAlive(server.pid)) return false;
  try {
    return readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0')[0] === server.binary;
  } catch {
    return false;
  }
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The shell-sourceable environment of a running stack. */
export function envFile(info: StackInfo): string {
  const vars: Record<string, string> = {
    TEMPORAL_ADDRESS: info.temporal.address,
    TEMPORAL_NAMESPACE: info.temporal.namespace,
    TEMPORAL_UI_URL: info.temporal.uiUrl ?? '',
    KUBECONFIG: info.kube.kubeconfig,
    K8S_NAMESPACE: info.kube.namespace,
    TEMPORAL_CLI: info.temporal.cli,
    // A MultiKueue stack: KUBECONFIG is the manager's; each worker's admin kubeconfig, and their names.
    ...Object.fromEntries((info.workers ?? []).map((w, i) => [workerKubeconfigVar(i + 1), w.kube.kubeconfig])),
    ...(info.workers ? { MULTIKUEUE_WORKERS: info.workers.map((w) => w.name).join(',') } : {}),
  };
  const lines = Object.entries(vars).map(([key, value]) => `export ${key}=${quote(value)}`);
  return `# Written by \`npm run dev:up\`; source it: . .dev/env\n${lines.join('\n')}\n`;
}

export interface Health {
  /** Per server: whether its process runs. */
  processes: Record<string, boolean>;
  kubeApiserverReady: boolean;
  /** A MultiKueue stack: per worker cluster, whether its API server's /readyz answers 200. */
  workerApiservers: Record<string, boolean>;
  /** Per component with a health endpoint (scheduler, KWOK, JobSet, Trainer, Kueue): whether it answers 200. */
  endpoints: Record<string, boolean>;
  temporalReady: boolean;
  healthy: boolean;
}

const apiserverReady = (kube: StackInfo['kube']): Promise<boolean> =>
  kubeRequest(adminAccess(kube), 'GET', '/readyz', undefined, { timeoutMs: 3_000 }).then(
    (r) => r.status === 200,
    () => false,
  );

export async function devHealth(state: DevState): Promise<Health> {
  const processes = Object.fromEntries(Object.entries(state.servers).map(([name, server]) => [name, isOurs(server)]));
  const workers = state.info.workers ?? [];
  const [api, temporal, ...workerApis] = await Promise.all([
    apiserverReady(state.info.kube),
    temporalReady(state.info.temporal.address).then(
      (ready) => ready === true,
      () => false,
    ),
    ...workers.map((w) => apiserverReady(w.kube)),
  ]);
  const workerApiservers = Object.fromEntries(workers.map((w, i) => [w.name, workerApis[i] === true]));
  // A worker's endpoints are named "<worker>.<component>", as its servers are.
  const urls = [...Object.entries(state.info.kube.health ?? {}), ...workers.flatMap((w) => Object.entries(w.kube.health).map(([name, url]) => [`${w.name}.${name}`, url] as const))];
  const endpoints = Object.fromEntries(
    await Promise.all(urls.map(async ([name, url]) => [name, (await answers200(url, 3_000).catch(() => undefined)) === true] as const)),
  );
  const healthy =
    Object.values(processes).every(Boolean) && api && temporal && Object.values(workerApiservers).every(Boolean) && Object.values(endpoints).every(Boolean);
  return { processes, kubeApiserverReady: api, workerApiservers, endpoints, temporalReady: temporal, healthy };
}

/** Stops every recorded server that is still ours, in order, and forgets the stack. */
export async function devDown(state: DevState | undefined = readDevState()): Promise<string[]> {
  const stopped: string[] = [];
  const stop = async (name: string) => {
    const server = state?.servers[name];
    if (server && isOurs(server)) {
      await stopServer(server.pid);
      stopped.push(name);
    }
  };
  // PostgreSQL (Temporal on PostgreSQL) stops after Temporal, with a fast shutdown. Each cluster
  // (the manager, and a MultiKueue stack's workers: "<worker>.<server>") stops in its own order.
  const clusters = ['', ...workerPrefixes(state)];
  const clusterServers = new Set(clusters.flatMap((prefix) => CLUSTER_STOP_ORDER.map((name) => `${prefix}${name}`)));
  const others = Object.keys(state?.servers ?? {}).filter((n) => !clusterServers.has(n) && n !== 'postgres');
  await Promise.all([
    ...clusters.map(async (prefix) => {
      for (const name of CLUSTER_STOP_ORDER) await stop(`${prefix}${name}`);
    }),
    ...others.map(stop),
  ]);
  const postgres = state?.servers.postgres;
  if (postgres && isOurs(postgres)) {
    await stopPostgres(postgres.pid);
    stopped.push('postgres');
  }
  if (state?.info.temporal.postgres) rmSync(state.info.temporal.postgres.dataDir, { recursive: true, force: true });
  rmSync(devPaths.state, { force: true });
  rmSync(devPaths.env, { force: true });
  // The data is of no use once etcd is down (each dev:up starts afresh); the logs stay.
  rmSync(devPaths.cluster, { recursive: true, force: true });
  return stopped;
}

export type DevUpResult = { already: true; state: DevState } | { already: false; state: DevState; replaced: string[] };

/**
 * Starts the stack unless a healthy one runs. A recorded stack that is not healthy is stopped
 * first. The servers are detached: they keep running after this process exits.
 */
export async function devUp(options: { namespace?: string; temporal?: TemporalKind; multiKueue?: MultiKueueOption } = {}): Promise<DevUpResult> {
  const previous = readDevState();
  const sameTemporal = (previous?.info.temporal.postgres !== undefined) === (options.temporal === 'postgres');
  const sameWorkers = (previous?.info.workers?.length ?? 0) === (options.multiKueue?.workers ?? 0);
  if (previous && sameTemporal && sameWorkers && (await devHealth(previous)).healthy) return { already: true, state: previous };
  const replaced = previous ? await devDown(previous) : [];
  const binaries = await serverBinaries();
  // Until the stack is recorded, an interrupted start must not leave orphans behind.
  const unhook = killServersOnExit();
  try {
    const stack = await startDevStack({
      binaries,
      stateDir: devPaths.cluster,
      logDir: devPaths.logs,
      namespace: options.namespace,
      temporal: options.temporal,
      ...(options.multiKueue ? { multiKueue: options.multiKueue } : {}),
    });
    const binaryOf: Record<string, string> = { ...binaries, ...stack.binaries };
    const servers = Object.fromEntries(
      Object.entries(stack.pids).map(([name, pid]) => [name, { pid, binary: binaryOf[name] ?? '' }]),
    );
    const state: DevState = { info: stack.info, servers, timings: stack.timings, startedAt: new Date().toISOString() };
    writeFileSync(devPaths.state, `${JSON.stringify(state, null, 2)}\n`);
    writeFileSync(devPaths.env, envFile(stack.info));
    return { already: false, state, replaced };
  } finally {
    unhook();
  }
}

export const devIsRecorded = (): boolean => existsSync(devPaths.state);
