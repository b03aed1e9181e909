// The frame of a reliability test file, on the run's shared servers or a cluster or Temporal server
// of the file's own: a fresh namespace, a fault proxy in front of the API server (the workers' only
// way to it), worker processes that can be killed, a Temporal client, the leak ledger, and where
// logs and figures go. Registered with beforeAll/afterAll; afterAll runs the namespace's leak audit
// before anything is removed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll } from 'vitest';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { createKubeClients, type KubeClients } from '../../../src/kube/clients.js';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { Labels, Trainer } from '../../../src/model/constants.js';
import type { Config, ConfigInput } from '../../../src/model/config.js';
import type { KubeObject } from '../../../src/model/kube.js';
import { adminAccess, type ClusterInfo } from '../../../dev/harness/cluster.js';
import { kubeConfigFor } from '../../../dev/harness/kube-access.js';
import { stackInfo } from '../../integration/support/context.js';
import { writeKubeconfig } from '../../integration/support/dispatch.js';
import { FaultProxy } from '../../integration/support/fault-proxy.js';
import { uniqueName, type TestNamespace } from '../../integration/support/kube.js';
import { temporalEnv } from '../../integration/support/temporal.js';
import { recordFigure } from './figures.js';
import { LeakLedger } from './leak-audit.js';
import { bundleFile, startWorkerProcess, type WorkerProcess } from './worker-handle.js';

export type LabConfig = Omit<ConfigInput, 'namespace' | 'kubeconfig' | 'temporal'>;

export interface Lab {
  ns: TestNamespace;
  proxy: FaultProxy;
  /** Admin clients straight to the API server, for assertions. */
  kube: KubeClients;
  /** The admin's KubeConfig, straight to the API server (for a fake Kueue, watches). */
  kubeConfig: KubeConfig;
  ledger: LeakLedger;
  env: TestWorkflowEnvironment;
  /** Where the workers' logs (and the bundle) go: <run logs>/reliability/<namespace>. */
  logDir: string;
  /** /apis/trainer.kubeflow.org/v1alpha1/namespaces/<namespace>: the paths faults aim at. */
  base: string;
  /** The configuration of one Start scenario: this namespace, a task queue of its own, workers via the proxy. */
  config(input?: LabConfig): Config;
  client(config: Config): DispatchKubeflowClient;
  /** A worker process on `config`; killed (if still running) when the file ends. */
  worker(
    config: Config,
    name: string,
    options?: { requestTimeoutMs?: number; gates?: 'proven' | 'preflight' },
  ): Promise<WorkerProcess>;
  /** Records a measured figure: printed, and appended to <run logs>/reliability-figures.jsonl. */
  figure(what: string, values: Record<string, unknown>): void;
}

/** Records a figure of this run: printed, and kept in the run's log folder. */
export const runFigure = (what: string, values: Record<string, unknown>) =>
  recordFigure(what, values, stackInfo().logDir);

export interface LabOptions {
  /** A Temporal server other than the run's shared one (host:port), read once the file's earlier beforeAll hooks have run. */
  temporalAddress?: () => string;
  /** A cluster other than the run's shared one, read likewise. */
  cluster?: () => ClusterInfo;
}

/** A fresh namespace `<prefix>-<random>` on the cluster `kc` reaches. */
async function createNamespace(kc: KubeConfig, prefix: string): Promise<TestNamespace> {
  const core = kc.makeApiClient(CoreV1Api);
  const name = uniqueName(prefix);
  await core.createNamespace({ body: { metadata: { name, labels: { 'dispatch-kubeflow/test': 'true' } } } });
  return {
    name,
    dispose: () =>
      core.deleteNamespace({ name }).then(
        () => undefined,
        () => undefined,
      ),
  };
}

export function reliabilityLab(prefix: string, options: LabOptions = {}): Lab {
  const lab = {} as Lab;
  const workers: WorkerProcess[] = [];
  let auditPassed = false;
  beforeAll(async () => {
    const admin = adminAccess(options.cluster?.() ?? stackInfo().kube);
    lab.ns = await createNamespace(kubeConfigFor(admin), prefix);
    lab.proxy = await FaultProxy.start(admin);
    lab.kubeConfig = kubeConfigFor({ ...admin, namespace: lab.ns.name });
    lab.kube = createKubeClients(lab.kubeConfig);
    lab.ledger = new LeakLedger(lab.kube, lab.ns.name);
    const temporalAddress = options.temporalAddress?.() ?? stackInfo().temporal.address;
    lab.env = await temporalEnv(temporalAddress);
    lab.logDir = join(stackInfo().logDir, 'reliability', lab.ns.name);
    mkdirSync(lab.logDir, { recursive: true });
    lab.base = `/apis/${Trainer.group}/${Trainer.version}/namespaces/${lab.ns.name}`;
    const kubeconfig = writeKubeconfig(
      lab.proxy.accessFor({ ...lab.proxy.accessFor(), namespace: lab.ns.name }),
    );
    const bundlePath = await bundleFile(lab.logDir);
    lab.config = (input = {}) =>
      parseConfig({
        ...input,
        namespace: lab.ns.name,
        kubeconfig,
        temporal: { taskQueue: uniqueName(prefix) },
      });
    lab.client = (config) =>
      new DispatchKubeflowClient(lab.env.client, {
        namespace: lab.ns.name,
        taskQueue: config.temporal.taskQueue,
      });
    lab.worker = async (config, name, options = {}) => {
      const worker = await startWorkerProcess({
        config,
        temporalAddress,
        bundlePath,
        logDir: lab.logDir,
        name,
        ...options,
      });
      workers.push(worker);
      return worker;
    };
    lab.figure = (what, values) => runFigure(what, { namespace: lab.ns.name, ...values });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    try {
      if (lab.ledger) {
        const { checked } = await lab.ledger.audit();
        lab.figure('leak audit', {
          expectedObjects: lab.ledger.expected.length,
          foundAtAudit: checked,
          unexpected: 0,
        });
      }
      auditPassed = true;
    } finally {
      await lab.proxy?.close();
      await lab.env?.teardown();
      // A namespace that failed its audit is kept, so that the run's final audit names its leaks too.
      if (auditPassed) await lab.ns?.dispose();
    }
  });
  return lab;
}

export interface JobObjects {
  trainJobs: KubeObject[];
  copies: KubeObject[];
}

/** The TrainJobs and TrainingRuntimes carrying a job's job-id label in the namespace (deleting ones included). */
export async function objectsOfJob(kube: KubeClients, namespace: string, jobId: string): Promise<JobObjects> {
  const list = async (plural: string) =>
    (
      (await kube.custom.listNamespacedCustomObject({
        group: Trainer.group,
        version: Trainer.version,
        namespace,
        plural,
        labelSelector: `${Labels.jobId}=${jobId.toLowerCase()}`,
      })) as { items: KubeObject[] }
    ).items;
  return { trainJobs: await list(Trainer.trainJobPlural), copies: await list(Trainer.trainingRuntimePlural) };
}

/** What a job left, in one line: "1 TrainJob (uid …), 1 copy owned by …" . */
export function describeJobObjects(objects: JobObjects): string {
  const one = (o: KubeObject) =>
    `${o.metadata?.name}${o.metadata?.deletionTimestamp ? ' (deleting)' : ''} uid ${o.metadata?.uid} owners [${(o.metadata?.ownerReferences ?? []).map((r) => r.uid).join(',')}]`;
  return `TrainJobs: ${objects.trainJobs.map(one).join('; ') || 'none'}; copies: ${objects.copies.map(one).join('; ') || 'none'}`;
}

/** Polls until `check` returns true or `timeoutMs` passes; returns whether it did. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  intervalMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
