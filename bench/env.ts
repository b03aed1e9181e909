// The bench's world: the local stack the integration tests use (etcd, kube-apiserver, garbage
// collector, Temporal dev server, sample runtimes), a prebuilt workflow bundle, and per-section
// namespaces, workers (each in its own process) and clients.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { DispatchKubeflowClient } from '../src/client/dispatch-client.js';
import { parseConfig } from '../src/config/load-config.js';
import { serverBinaries, type ServerBinaries } from '../dev/harness/binaries.js';
import { adminAccess } from '../dev/harness/cluster.js';
import { kubeConfigFor, kubeconfigYaml, type KubeAccess } from '../dev/harness/kube-access.js';
import { devDir, repoRoot } from '../dev/harness/paths.js';
import { freePorts } from '../dev/harness/process.js';
import { startTestStack, type Stack } from '../dev/harness/stack.js';
import { TEMPORAL_DYNAMIC_CONFIG } from '../dev/harness/temporal.js';
import type { Config, ConfigInput } from '../src/model/config.js';
import type { WorkerTuning } from '../src/worker/dispatch-worker.js';
import { interceptorModules } from '../scripts/build-workflow-bundle.js';
import { spawnWorker, type BenchWorker, type WorkerProgram } from './worker-handle.js';

export interface BenchEnv {
  stack: Stack;
  admin: KubeAccess;
  temporal: Client;
  /** The Temporal dev server's own Prometheus endpoint (its persistence requests, bench/temporal-metrics.ts). */
  temporalMetricsUrl: string;
  /** Where this run's logs, bundle and kubeconfigs are. */
  dir: string;
  /** The workflow bundle every worker (and the replayer) loads. */
  bundlePath: string;
  /** Labels for the CPU accounting: the bench itself and each worker by pid. */
  labels: Map<number, string>;
  /** A fresh Kubernetes namespace `<prefix>-<n>`. */
  namespace(prefix: string): Promise<string>;
  kubeconfigFile(name: string, access: KubeAccess): string;
  /** The product's configuration for a namespace, on a task queue of its own. */
  config(namespace: string, input?: Omit<ConfigInput, 'namespace'>): Config;
  /** A dispatch-kubeflow worker in its own process; the kubeconfig defaults to the admin's. */
  worker(
    label: string,
    config: Config,
    options?: { kubeconfigPath?: string; tuning?: WorkerTuning },
  ): Promise<BenchWorker>;
  client(config: Config): DispatchKubeflowClient;
  close(): Promise<void>;
}

/** BENCH_TEMPORAL_ARGS: extra `temporal server start-dev` arguments, e.g. dynamic config values (an experiment). */
export const temporalArgs = (process.env.BENCH_TEMPORAL_ARGS ?? '').split(' ').filter(Boolean);
/** The dev server's dynamic config: TEMPORAL_DYNAMIC_CONFIG (dev/harness/temporal.ts), or its own with BENCH_TEMPORAL_STOCK=1. */
export const temporalDynamicConfig = process.env.BENCH_TEMPORAL_STOCK === '1' ? {} : TEMPORAL_DYNAMIC_CONFIG;

/** The server binaries with `temporal` wrapped so that start-dev gets `args` too. */
function withTemporalArgs(binaries: ServerBinaries, dir: string, args: readonly string[]): ServerBinaries {
  const wrapper = join(dir, 'temporal-with-args.sh');
  const quoted = args.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  // Only the dev server gets them; any other use of the CLI stays as it is.
  writeFileSync(
    wrapper,
    `#!/bin/sh\nif [ "$1 $2" = "server start-dev" ]; then exec '${binaries.temporal}' "$@" ${quoted}; fi\nexec '${binaries.temporal}' "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  return { ...binaries, temporal: wrapper };
}

const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} };

/**
 * The worker program compiled as production runs it (tsc output, plain node): under tsx a worker
 * carries the loader's own isolate and transpile caches, about 100 MB of RSS that production has not.
 */
async function compileWorker(dir: string): Promise<WorkerProgram> {
  const outDir = join(dir, 'js');
  const tsconfig = join(dir, 'tsconfig.worker.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(repoRoot, 'tsconfig.json'),
      compilerOptions: { outDir, rootDir: repoRoot, noEmit: false, sourceMap: false, declaration: false },
      files: [join(repoRoot, 'bench', 'worker-child.ts')],
      include: [],
    }),
  );
  const code = await new Promise<number | null>((resolve, reject) => {
    const tsc = spawn(join(repoRoot, 'node_modules', '.bin', 'tsc'), ['-p', tsconfig], { stdio: 'inherit' });
    tsc.once('error', reject).once('exit', resolve);
  });
  if (code !== 0) throw new Error(`compiling the bench worker failed (tsc exited with ${code})`);
  return { compiled: join(outDir, 'bench', 'worker-child.js') };
}

export async function startBenchEnv(options: {
  tuning?: WorkerTuning;
  worker: 'compiled' | 'tsx';
  /** Bundler preloadModules, to measure them (BENCH_PRELOAD). */
  preload?: string[];
  /** Worker clusters beside the manager (dev/harness/multikueue.ts): the multikueue section's stack. */
  multiKueue?: { workers: number };
}): Promise<BenchEnv> {
  const dir = join(devDir, 'bench', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(dir, { recursive: true });
  // The dev server's metrics on a port of our own: start-dev takes a random one and says it only in its banner.
  const [metricsPort] = await freePorts(1);
  const [stack, bundle, program] = await Promise.all([
    serverBinaries().then((binaries) =>
      startTestStack({
        binaries: withTemporalArgs(binaries, dir, [`--metrics-port=${metricsPort}`, ...temporalArgs]),
        temporalDynamicConfig,
        ...(options.multiKueue ? { multiKueue: options.multiKueue } : {}),
      }),
    ),
    // As production bundles it (scripts/build-workflow-bundle.ts): with the metrics interceptor.
    interceptorModules(false).then((workflowInterceptorModules) =>
      bundleWorkflowCode({
        workflowsPath: join(repoRoot, 'src', 'workflows', 'index.ts'),
        workflowInterceptorModules,
        ...(options.preload?.length ? { preloadModules: options.preload } : {}),
        logger: quietLogger as never,
      }),
    ),
    options.worker === 'tsx' ? ('tsx' as const) : compileWorker(dir),
  ]);
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  const admin = adminAccess(stack.info.kube);
  const { address, namespace: temporalNamespace } = stack.info.temporal;
  const connection = await Connection.connect({ address });
  const temporal = new Client({ connection, namespace: temporalNamespace });
  const core = kubeConfigFor(admin).makeApiClient(CoreV1Api);
  const workers: BenchWorker[] = [];
  const labels = new Map<number, string>([[process.pid, 'bench']]);
  let serial = 0;

  const kubeconfigFile = (name: string, access: KubeAccess) => {
    const file = join(dir, `${name}.kubeconfig`);
    writeFileSync(file, kubeconfigYaml(access));
    return file;
  };
  const adminKubeconfig = kubeconfigFile('admin', admin);

  return {
    stack,
    admin,
    temporal,
    temporalMetricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    dir,
    bundlePath,
    labels,
    async namespace(prefix) {
      const name = `${prefix}-${++serial}`;
      await core.createNamespace({ body: { metadata: { name } } });
      return name;
    },
    kubeconfigFile,
    config(namespace, input = {}) {
      return parseConfig({ ...input, namespace, temporal: { taskQueue: `bench-${namespace}` } });
    },
    async worker(label, config, workerOptions = {}) {
      const tuning = { ...options.tuning, ...workerOptions.tuning };
      const worker = await spawnWorker(
        {
          temporalAddress: address,
          temporalNamespace,
          config,
          kubeconfigPath: workerOptions.kubeconfigPath ?? adminKubeconfig,
          bundlePath,
          tuning,
        },
        program,
        join(dir, `worker-${label}.log`),
      );
      workers.push(worker);
      labels.set(worker.pid, `worker`);
      return worker;
    },
    client(config) {
      return new DispatchKubeflowClient(temporal, {
        namespace: config.namespace,
        taskQueue: config.temporal.taskQueue,
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.stop()));
      await connection.close();
      await stack.stop();
    },
  };
}
