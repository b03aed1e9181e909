// The local cluster, on free loopback ports: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and KWOK's simulated nodes; the real JobSet, Trainer and Kueue controllers with
// their CRDs and admission webhooks; a namespace; kubeconfigs for the admin and the restricted
// identity. Every webhook fails closed, so the cluster counts as up only once each controller is
// ready and its webhooks are registered.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { Trainer } from '../../src/model/constants.js';
import type { ServerBinaries } from './binaries.js';
import { Identities, writeCredentials } from './credentials.js';
import { installCrds } from './crds.js';
import { startEtcd, type LaunchOptions } from './etcd.js';
import { kubeConfigFor, kubeconfigYaml, type KubeAccess } from './kube-access.js';
import { startKubeApiserver } from './kube-apiserver.js';
import { startKubeControllerManager } from './kube-controller-manager.js';
import { startKubeScheduler } from './kube-scheduler.js';
import { addKwokNodes, startKwok } from './kwok.js';
import { startJobSet, startKueue, startTrainer, type ControllerPorts, type KueueSettings } from './controllers.js';
import { writeWebhookPki } from './pki.js';
import { kueueConversion, registerWebhooks, WEBHOOK_SOURCES, webhookConfigurations } from './webhooks.js';
import { freePorts, signalGroup, stopServer, type ServerProcess } from './process.js';

export interface ClusterOptions extends LaunchOptions {
  binaries: Omit<ServerBinaries, 'temporal'>;
  /** Data, certificates, credentials and kubeconfigs go here. */
  stateDir: string;
  /** The namespace to create; the kubeconfigs default to it. */
  namespace: string;
  /** Directories of CRD YAML files to install. */
  crdDirs: string[];
  /** Simulated nodes to create (default 2). */
  nodes?: number;
  /**
   * Run the real Kueue (default true). A cluster without it has Kueue's CRDs only: for tests whose
   * stand-in plays what the real Kueue cannot be made to do (no Workload, a slow one, ...).
   */
  kueue?: boolean;
  /** What the real Kueue's configuration adds (a MultiKueue manager's, dev/harness/multikueue.ts); none by default. */
  kueueSettings?: KueueSettings;
}

/** What a client needs to use the cluster: plain data, so it can cross process boundaries. */
export interface ClusterInfo {
  server: string;
  caPem: string;
  adminToken: string;
  restrictedToken: string;
  namespace: string;
  /** Kubeconfig of the admin (system:masters). */
  kubeconfig: string;
  /** Kubeconfig of the restricted identity. */
  restrictedKubeconfig: string;
  etcdUrl: string;
  logDir: string;
  stateDir: string;
  pids: ClusterPids;
  /** Each component's health endpoint beyond the API server's /readyz (HTTPS ones are self-signed). */
  health: Record<string, string>;
}

/** The cluster's processes, in start order. */
export interface ClusterPids {
  etcd: number;
  kubeApiserver: number;
  kubeControllerManager: number;
  kubeScheduler: number;
  kwok: number;
  jobset: number;
  trainer: number;
  /** 0 on a cluster without Kueue. */
  kueue: number;
}

/** Where each controller serves its webhooks and health endpoint. */
export type ControllerEndpoints = Record<'jobset' | 'trainer' | 'kueue', ControllerPorts>;

/** Milliseconds from the launcher's start until each part was ready. */
export interface ClusterTimings {
  etcd: number;
  kubeApiserver: number;
  crds: number;
  kubeControllerManager: number;
  /** The scheduler, KWOK and its nodes Ready. */
  nodes: number;
  /** JobSet, Trainer and Kueue ready, their webhooks registered. */
  controllers: number;
}

export interface LocalCluster {
  info: ClusterInfo;
  timings: ClusterTimings;
  /** Stops the controller manager, the API server, then etcd; leaves no process behind. */
  stop(): Promise<void>;
  /** Takes the API server down and brings it back, for outage tests. */
  apiServer: ApiServerControl;
  /** Kills a controller and starts it again, for the chaos schedule (test/chaos). */
  controllers: Partial<Record<keyof ControllerEndpoints, ControllerControl>>;
  /**
   * kube-controller-manager, killed and started again: a fresh garbage collector lists every object,
   * where the running one only knows what its watches delivered (test/chaos, settling).
   */
  controllerManager: ControllerControl;
}

/** A controller (its webhooks included) killed and started again on the same ports, certificates and configuration. */
export interface ControllerControl {
  readonly running: boolean;
  /** kill -9: its webhooks then fail closed until it is back. */
  kill(): Promise<void>;
  /** Starts it again; resolves once its health endpoint answers. */
  start(): Promise<void>;
}

/**
 * An API server outage on demand: etcd and the controller manager keep running, so the data and
 * the garbage collector survive it. `info.pids.kubeApiserver` names the first process only.
 */
export interface ApiServerControl {
  /** Whether the API server process runs (it may not answer yet). */
  readonly running: boolean;
  /** Stops it (SIGTERM, SIGKILL after `graceMs`); its port then refuses connections. */
  stop(graceMs?: number): Promise<void>;
  /** Starts it again on the same port, etcd, certificates and flags; resolves once /readyz answers. */
  start(): Promise<void>;
}

export const adminAccess = (info: ClusterInfo): KubeAccess => ({
  server: info.server,
  caPem: info.caPem,
  token: info.adminToken,
  user: Identities.admin.user,
  namespace: info.namespace,
});

export const restrictedAccess = (info: ClusterInfo): KubeAccess => ({
  server: info.server,
  caPem: info.caPem,
  token: info.restrictedToken,
  user: Identities.restricted.user,
  namespace: info.namespace,
});

/** The cluster-wide read access the restricted identity starts with. */
export const RESTRICTED_READER_ROLE = 'dispatch-restricted-reader';

async function setUpAccess(admin: KubeAccess, namespace: string): Promise<void> {
  const kc = kubeConfigFor(admin);
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  await rbac.createClusterRole({
    body: {
      metadata: { name: RESTRICTED_READER_ROLE },
      rules: [
        {
          apiGroups: [Trainer.group],
          resources: [Trainer.trainJobPlural, Trainer.trainingRuntimePlural, Trainer.clusterTrainingRuntimePlural],
          verbs: ['get', 'list', 'watch'],
        },
      ],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: RESTRICTED_READER_ROLE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: RESTRICTED_READER_ROLE },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: Identities.restricted.user }],
    },
  });
}

async function startOnce(options: ClusterOptions, started: ServerProcess[]): Promise<Omit<LocalCluster, 'stop'>> {
  const t0 = Date.now();
  const launch = { logDir: options.logDir, lifeline: options.lifeline, detach: options.detach };
  const ports = await freePorts(14);
  const next = () => ports.shift() as number;
  const [etcdClient, etcdPeer, apiPort, kcmPort, schedulerPort, kwokPort] = [next(), next(), next(), next(), next(), next()];
  const endpoints: ControllerEndpoints = {
    jobset: { webhook: next(), health: next() },
    trainer: { webhook: next(), health: next() },
    kueue: { webhook: next(), health: next() },
  };
  const dirs = {
    etcd: join(options.stateDir, 'etcd'),
    pki: join(options.stateDir, 'pki'),
    kcm: join(options.stateDir, 'kcm-pki'),
    scheduler: join(options.stateDir, 'scheduler-pki'),
    webhookPki: join(options.stateDir, 'webhook-pki'),
    controllers: join(options.stateDir, 'controllers'),
  };
  // A retry must not find the first attempt's etcd member (bootstrapped on other ports).
  rmSync(dirs.etcd, { recursive: true, force: true });
  for (const dir of [options.logDir, ...Object.values(dirs)]) mkdirSync(dir, { recursive: true });
  const credentials = writeCredentials(options.stateDir);
  const pki = writeWebhookPki(dirs.webhookPki);

  const etcd = await startEtcd(options.binaries.etcd, { ...launch, dataDir: dirs.etcd, clientPort: etcdClient, peerPort: etcdPeer });
  started.push(etcd.process);
  const tEtcd = Date.now() - t0;

  const apiOptions = { ...launch, etcdUrl: etcd.url, port: apiPort, certDir: dirs.pki, credentials };
  const api = await startKubeApiserver(options.binaries.kubeApiserver, apiOptions);
  started.push(api.process);
  const tApi = Date.now() - t0;
  // The restarted process takes the first one's place in `started`, so that stop() stops it in turn.
  let apiProcess = api.process;
  const apiServer: ApiServerControl = {
    get running() {
      return !apiProcess.hasExited();
    },
    stop: (graceMs) => stopServer(apiProcess, graceMs),
    async start() {
      if (!apiProcess.hasExited()) return;
      const again = await startKubeApiserver(options.binaries.kubeApiserver, apiOptions);
      started[started.indexOf(apiProcess)] = again.process;
      apiProcess = again.process;
    },
  };

  const info: Omit<ClusterInfo, 'pids' | 'health'> = {
    server: api.server,
    caPem: api.caPem,
    adminToken: credentials.adminToken,
    restrictedToken: credentials.restrictedToken,
    namespace: options.namespace,
    kubeconfig: join(options.stateDir, 'kubeconfig'),
    restrictedKubeconfig: join(options.stateDir, 'kubeconfig-restricted'),
    etcdUrl: etcd.url,
    logDir: options.logDir,
    stateDir: options.stateDir,
  };
  const admin = adminAccess(info as ClusterInfo);
  writeFileSync(info.kubeconfig, kubeconfigYaml(admin), { mode: 0o600 });
  writeFileSync(info.restrictedKubeconfig, kubeconfigYaml(restrictedAccess(info as ClusterInfo)), { mode: 0o600 });

  // The collector builds its monitors from discovery when it starts (and rescans only every 30 s),
  // so it starts after the CRDs are served: owner references on Trainer objects work at once.
  const withKueue = options.kueue ?? true;
  const kueueCrds = kueueConversion(endpoints.kueue.webhook, pki.caBundle);
  const conversions = withKueue ? Object.fromEntries(kueueCrds.crds.map((name) => [name, kueueCrds.conversion])) : {};
  await Promise.all([installCrds(admin, options.crdDirs, { conversions }), setUpAccess(admin, options.namespace)]);
  const tCrds = Date.now() - t0;

  const kubeconfig = info.kubeconfig;
  const launchKcm = () => startKubeControllerManager(options.binaries.kubeControllerManager, { ...launch, kubeconfig, port: kcmPort, certDir: dirs.kcm });
  const kcm = await launchKcm();
  started.push(kcm);
  const tKcm = Date.now() - t0;

  // Nodes and controllers come up side by side; each process joins `started` as soon as it runs.
  const track = (p: Promise<ServerProcess>) => p.then((server) => (started.push(server), server));
  const nodes = (async () => {
    const [scheduler, kwok] = await Promise.all([
      track(startKubeScheduler(options.binaries.kubeScheduler, { ...launch, kubeconfig, port: schedulerPort, certDir: dirs.scheduler })),
      track(startKwok(options.binaries.kwok, { ...launch, kubeconfig, port: kwokPort })),
    ]);
    await addKwokNodes(admin, options.nodes ?? 2);
    return { scheduler, kwok, at: Date.now() - t0 };
  })();
  const controller = (name: keyof ControllerEndpoints) => ({ ...launch, kubeconfig, dir: join(dirs.controllers, name), pki, ports: endpoints[name] });
  const launchers: Partial<Record<keyof ControllerEndpoints, () => Promise<ServerProcess>>> = {
    jobset: () => startJobSet(options.binaries.jobset, controller('jobset')),
    trainer: () => startTrainer(options.binaries.trainer, controller('trainer')),
    ...(withKueue ? { kueue: () => startKueue(options.binaries.kueue, controller('kueue'), options.kueueSettings) } : {}),
  };
  const controllers = (async () => {
    const [jobset, trainer, kueue] = await Promise.all([
      track(launchers.jobset!()),
      track(launchers.trainer!()),
      launchers.kueue ? track(launchers.kueue()) : undefined,
    ]);
    // Registered once every server answers: they fail closed. JobSet's before any TrainJob exists,
    // or Trainer's JobSets would miss its defaulting (spec.network) and the JobSet controller panics.
    await registerWebhooks(admin, [
      ...webhookConfigurations(WEBHOOK_SOURCES.jobset, endpoints.jobset.webhook, pki.caBundle),
      ...webhookConfigurations(WEBHOOK_SOURCES.trainer, endpoints.trainer.webhook, pki.caBundle),
      ...(withKueue ? webhookConfigurations(WEBHOOK_SOURCES.kueue, endpoints.kueue.webhook, pki.caBundle) : []),
    ]);
    return { jobset, trainer, kueue, at: Date.now() - t0 };
  })();
  // Both are awaited before failing, so a failure of one leaves no rejection of the other unheard.
  const [nodesUp, controllersUp] = await Promise.allSettled([nodes, controllers]);
  if (nodesUp.status === 'rejected') throw nodesUp.reason;
  if (controllersUp.status === 'rejected') throw controllersUp.reason;
  const [n, c] = [nodesUp.value, controllersUp.value];
  const controlOf = (first: ServerProcess, launch: () => Promise<ServerProcess>): ControllerControl => {
    let current = first;
    return {
      get running() {
        return !current.hasExited();
      },
      async kill() {
        if (!current.hasExited()) signalGroup(current.pid, 'SIGKILL');
        await stopServer(current, 0);
      },
      async start() {
        if (!current.hasExited()) return;
        const again = await launch();
        // The new process takes the old one's place in `started`, so that stop() stops it in turn.
        started[started.indexOf(current)] = again;
        current = again;
      },
    };
  };

  return {
    info: {
      ...info,
      pids: {
        etcd: etcd.process.pid,
        kubeApiserver: api.process.pid,
        kubeControllerManager: kcm.pid,
        kubeScheduler: n.scheduler.pid,
        kwok: n.kwok.pid,
        jobset: c.jobset.pid,
        trainer: c.trainer.pid,
        kueue: c.kueue?.pid ?? 0,
      },
      health: {
        kubeScheduler: `https://127.0.0.1:${schedulerPort}/readyz`,
        kwok: `http://127.0.0.1:${kwokPort}/healthz`,
        jobset: `http://127.0.0.1:${endpoints.jobset.health}/readyz`,
        trainer: `http://127.0.0.1:${endpoints.trainer.health}/readyz`,
        ...(withKueue ? { kueue: `http://127.0.0.1:${endpoints.kueue.health}/readyz` } : {}),
      },
    },
    timings: { etcd: tEtcd, kubeApiserver: tApi, crds: tCrds, kubeControllerManager: tKcm, nodes: n.at, controllers: c.at },
    apiServer,
    controllers: {
      jobset: controlOf(c.jobset, launchers.jobset!),
      trainer: controlOf(c.trainer, launchers.trainer!),
      ...(c.kueue ? { kueue: controlOf(c.kueue, launchers.kueue!) } : {}),
    },
    controllerManager: controlOf(kcm, launchKcm),
  };
}

/** Stops servers in reverse start order. */
export async function stopAll(servers: (ServerProcess | number)[]): Promise<void> {
  for (const server of [...servers].reverse()) await stopServer(server);
}

/**
 * Starts the cluster. A port taken between choosing and binding it fails one server; the whole
 * start is then retried once on fresh ports.
 */
export async function startCluster(options: ClusterOptions): Promise<LocalCluster> {
  for (let attempt = 1; ; attempt++) {
    const started: ServerProcess[] = [];
    try {
      const cluster = await startOnce(options, started);
      return { ...cluster, stop: () => stopAll(started) };
    } catch (err) {
      await stopAll(started);
      if (attempt >= 2 || !String((err as Error).message).includes('address already in use')) throw err;
    }
  }
}
