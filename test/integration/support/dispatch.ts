// A dispatch-kubeflow worker for one test file: its own Kubernetes namespace and task queue on the
// shared servers, a kubeconfig (direct or through a fault proxy), and the typed client.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createKubeClients, loadKubeConfig, type KubeClients } from '../../../src/kube/clients.js';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { adminAccess, type ClusterInfo } from '../../../dev/harness/cluster.js';
import { kubeconfigYaml, type KubeAccess } from '../../../dev/harness/kube-access.js';
import type { Config, ConfigInput } from '../../../src/model/config.js';
import type { BackendGates } from '../../../src/model/results.js';
import { ActivityCalls } from './activity-calls.js';
import { createDispatchWorker, type DispatchWorker } from '../../../src/worker/dispatch-worker.js';
import type { DispatchMetrics } from '../../../src/observability/metrics.js';
import type { DispatchTracing } from '../../../src/observability/tracing.js';
import { kubeAccess } from './kube.js';
import { temporalEnv, uniqueTaskQueue } from './temporal.js';
import { workflowBundle } from '../../support/workflow-bundle.js';

export { workflowBundle };


export function writeKubeconfig(access: KubeAccess): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dk-kubeconfig-')), 'config');
  writeFileSync(file, kubeconfigYaml(access));
  return file;
}

export const PROVEN: BackendGates = { reach: true, write: true, start: true, reasons: [], checkedAt: '2026-01-01T00:00:00.000Z' };

export interface DispatchHarness {
  config: Config;
  env: TestWorkflowEnvironment;
  client: DispatchKubeflowClient;
  worker: DispatchWorker;
  /** Every activity attempt of this worker, with its input and result. */
  calls: ActivityCalls;
  /** Admin clients on the API server directly (not through any proxy), for assertions. */
  kube: KubeClients;
  close(): Promise<void>;
}

export interface DispatchHarnessOptions {
  namespace: string;
  config?: Omit<ConfigInput, 'namespace'>;
  /** The API server the worker talks to (default: the admin identity, directly). */
  access?: KubeAccess;
  /** A cluster other than the run's shared one (e.g. one without Kueue), for the worker and `kube`. */
  cluster?: ClusterInfo;
  /** Gates the worker reports before any preflight (default: all proven). */
  gates?: BackendGates | 'none';
  requestTimeoutMs?: number;
  /** The codec's data converter, for the worker and the harness's client alike. */
  dataConverter?: DataConverter;
  /** The worker's metrics registry (default: its own, on `worker.metrics`). */
  metrics?: DispatchMetrics;
  /** Tracing's plugin, for the worker and the harness's client alike. */
  tracing?: DispatchTracing;
  /** A workflow bundle other than the shared one (e.g. built with tracing's plugin). */
  workflowBundle?: { code: string };
  /** A Temporal server other than the run's shared one (host:port), e.g. one with its Web UI. */
  temporalAddress?: string;
  /**
   * Kueue mode: run the worker's admission check controller, as the product's worker does (default
   * true). Off where the Kueue is a stand-in that a controller marking Workloads Ready would upset.
   */
  admissionController?: boolean;
  /** Time between the controller's passes (default the worker's, 1 s). */
  admissionIntervalMs?: number;
  /** The task queue (default: one of its own), e.g. one another harness's worker polls too. */
  taskQueue?: string;
  /** A build of a worker deployment: the worker is versioned (docs/versioning.md). */
  deploymentVersion?: { deploymentName: string; buildId: string };
}

export async function startDispatch(options: DispatchHarnessOptions): Promise<DispatchHarness> {
  const adminOf = (): KubeAccess =>
    options.cluster ? { ...adminAccess(options.cluster), namespace: options.namespace } : kubeAccess('admin', options.namespace);
  const kubeconfig = writeKubeconfig(options.access ?? adminOf());
  const config = parseConfig({
    timeouts: { call: '5s', workload: '5s' },
    ...options.config,
    namespace: options.namespace,
    kubeconfig,
    temporal: { taskQueue: options.taskQueue ?? uniqueTaskQueue('dispatch') },
  });
  const env = await temporalEnv(options.temporalAddress);
  // With a codec or tracing, the harness's client (and the preflight's) has them too.
  const client =
    options.dataConverter || options.tracing
      ? new Client({
          connection: env.client.connection,
          namespace: env.namespace ?? 'default',
          ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
          ...(options.tracing ? { plugins: [options.tracing.plugin] } : {}),
        })
      : env.client;
  const calls = new ActivityCalls();
  const worker = await createDispatchWorker({
    config,
    activityInterceptors: [calls.interceptor],
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    client,
    workflowBundle: options.workflowBundle ?? (await workflowBundle()),
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.tracing ? { plugins: [options.tracing.plugin] } : {}),
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.admissionController === false ? { admissionController: false } : {}),
    ...(options.admissionIntervalMs !== undefined ? { admissionIntervalMs: options.admissionIntervalMs } : {}),
    ...(options.deploymentVersion ? { deploymentVersion: options.deploymentVersion } : {}),
  });
  if (options.gates !== 'none') worker.gates.update(options.gates ?? PROVEN);
  const running = worker.worker.run();
  // worker.run() would also run the preflight, whose gates would replace the ones given above.
  const stopController = new AbortController();
  const controlling = worker.admissionController?.run(stopController.signal);
  // The Watch waker, as worker.run() runs it (docs/contract.md §9b).
  const waking = worker.waker?.run(stopController.signal);
  // MultiKueue: the watch of the worker clusters' pods, as worker.run() runs it (docs/multikueue.md).
  const watchingPods = worker.podWatch?.run(stopController.signal);
  const admin = createKubeClients(loadKubeConfig(writeKubeconfig(adminOf())));
  return {
    config,
    env,
    worker,
    calls,
    kube: admin,
    client: new DispatchKubeflowClient(client, { namespace: options.namespace, taskQueue: config.temporal.taskQueue }),
    async close() {
      stopController.abort();
      worker.worker.shutdown();
      // The wakes in flight settle before the connection they use is closed.
      await Promise.all([running, controlling, waking, watchingPods]);
      await env.teardown();
    },
  };
}
