// The local cluster: etcd, kube-apiserver and kube-controller-manager (garbage collector and
// namespace controller) on free loopback ports, with the real Trainer and Kueue CRDs installed, a
// namespace created, and kubeconfigs for the admin and the restricted identity written.
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
import { freePorts, stopServer, type ServerProcess } from './process.js';

export interface ClusterOptions extends LaunchOptions {
  binaries: Pick<ServerBinaries, 'etcd' | 'kubeApiserver' | 'kubeControllerManager'>;
  /** Data, certificates, credentials and kubeconfigs go here. */
  stateDir: string;
  /** The namespace to create; the kubeconfigs default to it. */
  namespace: string;
  /** Directories of CRD YAML files to install. */
  crdDirs: string[];
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
  pids: { etcd: number; kubeApiserver: number; kubeControllerManager: number };
}

/** Milliseconds from the launcher's start until each part was ready. */
export interface ClusterTimings {
  etcd: number;
  kubeApiserver: number;
  crds: number;
  kubeControllerManager: number;
}

export interface LocalCluster {
  info: ClusterInfo;
  timings: ClusterTimings;
  /** Stops the controller manager, the API server, then etcd; leaves no process behind. */
  stop(): Promise<void>;
  /** Takes the API server down and brings it back, for outage tests. */
  apiServer: ApiServerControl;
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
  const [etcdClient, etcdPeer, apiPort, kcmPort] = (await freePorts(4)) as [number, number, number, number];
  const dirs = { etcd: join(options.stateDir, 'etcd'), pki: join(options.stateDir, 'pki'), kcm: join(options.stateDir, 'kcm-pki') };
  // A retry must not find the first attempt's etcd member (bootstrapped on other ports).
  rmSync(dirs.etcd, { recursive: true, force: true });
  for (const dir of [options.logDir, ...Object.values(dirs)]) mkdirSync(dir, { recursive: true });
  const credentials = writeCredentials(options.stateDir);

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

  const info: Omit<ClusterInfo, 'pids'> = {
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
  await Promise.all([installCrds(admin, options.crdDirs), setUpAccess(admin, options.namespace)]);
  const tCrds = Date.now() - t0;

  const kcm = await startKubeControllerManager(options.binaries.kubeControllerManager, {
    ...launch,
    kubeconfig: info.kubeconfig,
    port: kcmPort,
    certDir: dirs.kcm,
  });
  started.push(kcm);
  const tKcm = Date.now() - t0;

  return {
    info: { ...info, pids: { etcd: etcd.process.pid, kubeApiserver: api.process.pid, kubeControllerManager: kcm.pid } },
    timings: { etcd: tEtcd, kubeApiserver: tApi, crds: tCrds, kubeControllerManager: tKcm },
    apiServer,
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
