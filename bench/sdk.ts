// The peer a platform team would pick instead: the Kubeflow SDK (PyPI kubeflow, TrainerClient().train)
// beside a plain-mode Start, in one run, on the same API server, namespace, runtime and TrainJob
// shape as far as the SDK's API allows. Both reach the API server through a fault proxy of their
// own (no faults), whose counts say what each did for its time. The SDK runs in a Python driver
// (bench/sdk/train_bench.py) from a virtual environment the bench makes once under .dev/.
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { WorkflowHandle } from '@temporalio/client';
import { FaultProxy, type ProxiedRequest } from '../dev/harness/fault-proxy.js';
import { kubeCall, kubeRequest, type KubeAccess } from '../dev/harness/kube-access.js';
import { devDir, repoRoot } from '../dev/harness/paths.js';
import { applyKueueSamples, KUEUE_SAMPLE_QUEUE } from '../dev/harness/samples.js';
import { Labels, Trainer } from '../src/model/constants.js';
import type { KubeObject } from '../src/model/kube.js';
import { startRequest } from '../test/support/requests.js';
import type { BenchEnv } from './env.js';
import { untilTrue } from './observe.js';
import { cpuBetween, cpuPerUnit, cpuSnapshot, describePerUnit, describeShare } from './proc.js';
import type { BenchSettings } from './settings.js';
import { fixed, ms, spread, type Row, type Spread } from './stats.js';

export const KUBEFLOW_VERSION = '0.5.0';
/** Concurrent callers of each level: sequential, then the issue's 8 and 32. */
const LEVELS = [1, 8, 32];
/** The runtime a Start names (test/support/requests.ts), handed to the SDK as a Runtime object. */
const RUNTIME = 'dispatch-kind';
/** The label the SDK requires of a runtime it reads by name; its value only picks the trainer type. */
const FRAMEWORK_LABEL = 'trainer.kubeflow.org/framework';
const FRAMEWORK = 'dispatch';

type Runtime = 'object' | 'name';

interface DriverAnswer {
  latenciesMs: number[];
  names: string[];
  failures: string[];
  seconds: number;
}

/** Requests per TrainJob, by call ("POST trainjobs"), from what a proxy saw. */
type Calls = Record<string, number>;

export interface SdkLevel {
  callers: number;
  sdk: Record<Runtime, Spread & { perSecond: number; failed: number }>;
  start: Spread & { perSecond: number; failed: number };
  /** CPU ms per TrainJob by process, for each side run alone at this level (not the sequential one, which alternates). */
  cpu?: {
    sdk: ReturnType<typeof cpuPerUnit>;
    start: ReturnType<typeof cpuPerUnit>;
    sdkShare: string;
    startShare: string;
  };
}

export interface SdkResult {
  kubeflow: string;
  python: string;
  levels: SdkLevel[];
  /** Per TrainJob, sequential: what the SDK (both runtime forms) and the worker asked of the API server. */
  calls: { sdkObject: Calls; sdkName: Calls; start: Calls; sdkClient: Calls };
  /** Events in one Start's history: what Temporal keeps of it. */
  startHistoryEvents: number;
  /** What landed: one TrainJob of each, as the API server holds it. */
  landed: { sdk: string; start: string };
  deleted: number;
}

/** The virtual environment with kubeflow==KUBEFLOW_VERSION: made once with the machine's python3, then reused. */
export function kubeflowVenv(): { python: string; version: string } {
  const dir = join(devDir, `venv-kubeflow-${KUBEFLOW_VERSION}`);
  const python = join(dir, 'bin', 'python');
  const installed = () =>
    existsSync(python) &&
    spawnSync(
      python,
      ['-c', 'import importlib.metadata as m, kubeflow.trainer; print(m.version("kubeflow"))'],
      {
        encoding: 'utf8',
      },
    ).stdout.trim() === KUBEFLOW_VERSION;
  if (!installed()) {
    console.error(`[bench] sdk: installing kubeflow==${KUBEFLOW_VERSION} into ${dir} (once; about a minute)`);
    const run = (command: string, args: string[]) => {
      // pip's progress goes to the bench's stderr, so the table on stdout stays clean.
      const { status } = spawnSync(command, args, { stdio: ['ignore', 2, 2] });
      if (status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${status}`);
    };
    run('python3', ['-m', 'venv', '--clear', dir]);
    run(join(dir, 'bin', 'pip'), ['install', '--disable-pip-version-check', `kubeflow==${KUBEFLOW_VERSION}`]);
    if (!installed())
      throw new Error(`${dir}: kubeflow ${KUBEFLOW_VERSION} is not importable after installing it`);
  }
  const version = spawnSync(python, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return { python, version };
}

/** The Python driver, one JSON line each way per request. */
class Driver {
  private readonly lines: Interface;
  private readonly answers: string[] = [];
  private waiting?: (line: string) => void;

  private constructor(readonly child: ChildProcessByStdio<Writable, Readable, null>) {
    this.lines = createInterface({ input: child.stdout });
    this.lines.on('line', (line) => {
      if (this.waiting) this.waiting(line);
      else this.answers.push(line);
    });
  }

  static start(python: string, settings: unknown): Driver {
    const script = join(repoRoot, 'bench', 'sdk', 'train_bench.py');
    return new Driver(
      spawn(python, [script, JSON.stringify(settings)], { stdio: ['pipe', 'pipe', 'inherit'] }),
    );
  }

  async ask(request: Record<string, unknown>): Promise<DriverAnswer> {
    this.child.stdin.write(`${JSON.stringify(request)}\n`);
    const line =
      this.answers.shift() ??
      (await new Promise<string>((resolve, reject) => {
        const exited = (code: number | null) => reject(new Error(`the SDK driver exited with ${code}`));
        this.child.once('exit', exited);
        this.waiting = (l) => {
          this.waiting = undefined;
          this.child.off('exit', exited);
          resolve(l);
        };
      }));
    return JSON.parse(line) as DriverAnswer;
  }

  async quit(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end(`${JSON.stringify({ op: 'quit' })}\n`);
    await exited;
    this.lines.close();
  }
}

/** "GET clustertrainingruntimes/{name}", with the status when not 2xx: the call, not the object. */
export function callOf(r: ProxiedRequest): string {
  const parts = r.path.split('/').filter(Boolean);
  let rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [resource, name, sub] = rest;
  const status = r.upstreamStatus ?? r.status;
  const failed = status !== undefined && (status < 200 || status > 299) ? ` ${status}` : '';
  return `${r.method} ${resource ?? r.path}${name ? '/{name}' : ''}${sub ? `/${sub}` : ''}${failed}`;
}

const tally = (into: Calls, requests: readonly ProxiedRequest[]) => {
  for (const r of requests) into[callOf(r)] = (into[callOf(r)] ?? 0) + 1;
};
const perUnit = (calls: Calls, units: number): Calls =>
  Object.fromEntries(Object.entries(calls).map(([call, n]) => [call, n / Math.max(1, units)]));
export const describeCalls = (calls: Calls) =>
  Object.entries(calls)
    .map(([call, n]) => `${Number.isInteger(n) ? n : fixed(n, 2)} ${call}`)
    .join(', ') || 'none';

const spreadOf = (latencies: number[], seconds: number, failed: number) => ({
  ...spread(latencies),
  perSecond: latencies.length / seconds,
  failed,
});

/** `n` Starts from `callers` callers at once; each Start's time from submit to result. */
async function starts(client: ReturnType<BenchEnv['client']>, callers: number, n: number) {
  const latencies: number[] = [];
  const failures: string[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < n) {
        next++;
        const s = performance.now();
        try {
          await (await client.submit(startRequest())).result();
          latencies.push(performance.now() - s);
        } catch (error) {
          failures.push(String(error));
        }
      }
    }),
  );
  if (failures.length > 0)
    console.error(`[bench] sdk: ${failures.length} Starts failed, first: ${failures[0]}`);
  return spreadOf(latencies, (performance.now() - t0) / 1000, failures.length);
}

/** The sample runtime as a TrainingRuntime in `namespace`, with the label the SDK needs to read it by name. */
async function runtimeCopy(admin: KubeAccess, namespace: string): Promise<void> {
  const source = (await kubeCall(
    admin,
    'GET',
    `/apis/${Trainer.apiVersion}/${Trainer.clusterTrainingRuntimePlural}/${RUNTIME}`,
  )) as KubeObject & { spec: unknown };
  await kubeCall(
    admin,
    'POST',
    `/apis/${Trainer.apiVersion}/namespaces/${namespace}/${Trainer.trainingRuntimePlural}`,
    {
      apiVersion: Trainer.apiVersion,
      kind: Trainer.trainingRuntimeKind,
      metadata: { name: RUNTIME, labels: { [FRAMEWORK_LABEL]: FRAMEWORK } },
      spec: source.spec,
    },
  );
}

/** One line of what the API server holds for a TrainJob. */
function describeTrainJob(job: KubeObject & { spec?: Record<string, unknown> }): string {
  const spec = job.spec ?? {};
  const trainer = (spec.trainer ?? {}) as Record<string, unknown>;
  const ref = (spec.runtimeRef ?? {}) as { kind?: string; name?: string };
  const owners = job.metadata?.ownerReferences?.length ?? 0;
  return (
    `suspend ${String(spec.suspend ?? false)}, runtimeRef ${ref.kind}/${ref.name === RUNTIME ? ref.name : '<copy>'}, ` +
    `numNodes ${String(trainer.numNodes)}, ${(trainer.env as unknown[] | undefined)?.length ?? 0} env, ` +
    `${Object.keys(job.metadata?.labels ?? {}).length} labels, ${Object.keys(job.metadata?.annotations ?? {}).length} annotations, ` +
    `${owners} owner references`
  );
}

export async function measureSdk(
  env: BenchEnv,
  settings: BenchSettings,
): Promise<{ rows: Row[]; result: SdkResult }> {
  const { python, version } = kubeflowVenv();
  const namespace = await env.namespace('sdk');
  // The SDK cannot create a TrainJob suspended; Kueue's webhook does, for one with its queue label.
  await applyKueueSamples(env.admin, [namespace]);
  await runtimeCopy(env.admin, namespace);
  const sdkProxy = await FaultProxy.start({ ...env.admin, namespace });
  const workerProxy = await FaultProxy.start({ ...env.admin, namespace });
  const config = env.config(namespace);
  const worker = await env.worker('sdk', config, {
    kubeconfigPath: env.kubeconfigFile('sdk-worker-proxy', workerProxy.accessFor()),
  });
  const client = env.client(config);
  const request = startRequest();
  const image = request.spec.extensions?.['dispatch/Image'] as { ref: string };
  const driver = Driver.start(python, {
    namespace,
    kubeconfig: env.kubeconfigFile('sdk-python-proxy', sdkProxy.accessFor()),
    image: image.ref,
    runtime: { object: RUNTIME, name: RUNTIME, framework: FRAMEWORK },
    job: {
      image: image.ref,
      command: request.spec.command,
      env: request.spec.env,
      numNodes: request.spec.nodes,
      resourcesPerNode: { gpu: request.spec.gpusPerNode },
      labels: { [Labels.kueueQueueName]: KUEUE_SAMPLE_QUEUE },
    },
  });
  env.labels.set(driver.child.pid!, 'kubeflow sdk');
  const sdkNames: string[] = [];
  // The SDK's TrainJobs go after each level, so that no level runs beside the last one's, one
  // DELETE each (a deletecollection of hundreds outlives the API server's 60 s request timeout on
  // a busy machine); then until none is left. Only they carry Kueue's queue label here.
  let deleted = 0;
  const trainJobs = `/apis/${Trainer.apiVersion}/namespaces/${namespace}/${Trainer.trainJobPlural}`;
  const deleteSdkJobs = async () => {
    const names = sdkNames.splice(0);
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let name = names.pop(); name !== undefined; name = names.pop()) {
          const { status } = await kubeRequest(env.admin, 'DELETE', `${trainJobs}/${name}`);
          if (status < 300 || status === 404) deleted++;
          else console.error(`[bench] sdk: DELETE TrainJob ${namespace}/${name}: HTTP ${status}`);
        }
      }),
    );
    const selector = `${trainJobs}?limit=1&labelSelector=${encodeURIComponent(Labels.kueueQueueName)}`;
    await untilTrue(
      120_000,
      async () => ((await kubeCall(env.admin, 'GET', selector)) as { items: unknown[] }).items.length === 0,
      500,
    );
  };
  const train = async (runtime: Runtime, callers: number, count: number) => {
    const answer = await driver.ask({ op: 'train', runtime, callers, count });
    sdkNames.push(...answer.names);
    if (answer.failures.length > 0)
      console.error(
        `[bench] sdk: ${answer.failures.length} train() calls failed, first: ${answer.failures[0]}`,
      );
    return answer;
  };
  try {
    const n = settings.latencyStarts;
    const levels: SdkLevel[] = [];
    const calls = {
      sdkObject: {} as Calls,
      sdkName: {} as Calls,
      start: {} as Calls,
      sdkClient: {} as Calls,
    };

    // Sequential: one of each in turn, as the latency section alternates, so that a change in the
    // machine's load falls on all alike. Each call's requests are its proxy's between its ask and answer.
    const c0 = sdkProxy.requests.length;
    await driver.ask({ op: 'train', runtime: 'object', callers: 1, count: 0 });
    tally(calls.sdkClient, sdkProxy.requests.slice(c0));
    for (let i = 0; i < settings.warmup; i++) {
      await train('object', 1, 1);
      await train('name', 1, 1);
      await client.startTrainJob(startRequest());
    }
    const sequential = { object: [] as number[], name: [] as number[], start: [] as number[] };
    let handle: WorkflowHandle | undefined;
    for (let i = 0; i < n; i++) {
      for (const runtime of ['object', 'name'] as const) {
        const from = sdkProxy.requests.length;
        sequential[runtime].push(...(await train(runtime, 1, 1)).latenciesMs);
        tally(runtime === 'object' ? calls.sdkObject : calls.sdkName, sdkProxy.requests.slice(from));
      }
      const from = workerProxy.requests.length;
      const t0 = performance.now();
      handle = await client.submit(startRequest());
      await handle.result();
      sequential.start.push(performance.now() - t0);
      tally(calls.start, workerProxy.requests.slice(from));
    }
    const perSecondOf = (samples: number[]) =>
      1000 / (samples.reduce((a, b) => a + b, 0) / (samples.length || 1));
    const asSequential = (samples: number[]) => ({
      ...spread(samples),
      perSecond: perSecondOf(samples),
      failed: n - samples.length,
    });
    levels.push({
      callers: 1,
      sdk: { object: asSequential(sequential.object), name: asSequential(sequential.name) },
      start: asSequential(sequential.start),
    });
    // What landed, one of each, as the API server holds it.
    const list = async (selector: string) =>
      (
        (await kubeCall(
          env.admin,
          'GET',
          `/apis/${Trainer.apiVersion}/namespaces/${namespace}/${Trainer.trainJobPlural}?limit=1&labelSelector=${encodeURIComponent(selector)}`,
        )) as { items: KubeObject[] }
      ).items[0];
    const [sdkJob, startJob] = [await list(Labels.kueueQueueName), await list(`!${Labels.kueueQueueName}`)];
    console.error(`[bench] sdk: sequential done`);
    await deleteSdkJobs();

    // Concurrent: the SDK (each runtime form), then as many Starts, each side alone on the machine.
    for (const callers of LEVELS.slice(1)) {
      await driver.ask({ op: 'train', runtime: 'object', callers, count: 0 });
      const s0 = cpuSnapshot(env.labels);
      const object = await train('object', callers, n);
      const name = await train('name', callers, n);
      const sdkShare = cpuBetween(s0, cpuSnapshot(env.labels));
      const w0 = cpuSnapshot(env.labels);
      const start = await starts(client, callers, n);
      const startShare = cpuBetween(w0, cpuSnapshot(env.labels));
      levels.push({
        callers,
        sdk: {
          object: spreadOf(object.latenciesMs, object.seconds, object.failures.length),
          name: spreadOf(name.latenciesMs, name.seconds, name.failures.length),
        },
        start,
        cpu: {
          sdk: cpuPerUnit(sdkShare, object.names.length + name.names.length),
          start: cpuPerUnit(startShare, start.n),
          sdkShare: describeShare(sdkShare),
          startShare: describeShare(startShare),
        },
      });
      console.error(`[bench] sdk: ${callers} callers done`);
      await deleteSdkJobs();
    }

    const startHistoryEvents = handle ? ((await handle.fetchHistory()).events?.length ?? 0) : 0;
    const result: SdkResult = {
      kubeflow: KUBEFLOW_VERSION,
      python: version,
      levels,
      calls: {
        sdkObject: perUnit(calls.sdkObject, n),
        sdkName: perUnit(calls.sdkName, n),
        start: perUnit(calls.start, n),
        sdkClient: calls.sdkClient,
      },
      startHistoryEvents,
      landed: {
        sdk: sdkJob ? describeTrainJob(sdkJob) : 'none found',
        start: startJob ? describeTrainJob(startJob) : 'none found',
      },
      deleted,
    };
    return { rows: rowsOf(result), result };
  } finally {
    await deleteSdkJobs().catch((error: unknown) =>
      console.error(`[bench] sdk: deleting the SDK's TrainJobs: ${String(error)}`),
    );
    env.labels.delete(driver.child.pid!);
    await driver.quit();
    await worker.stop();
    await sdkProxy.close();
    await workerProxy.close();
  }
}

function rowsOf(result: SdkResult): Row[] {
  const pair = (s: Spread & { perSecond: number; failed: number }) =>
    `p50 ${ms(s.p50)}, p95 ${ms(s.p95)} (n=${s.n}${s.failed ? `, ${s.failed} FAILED` : ''}; ${fixed(s.perSecond)}/s)`;
  const rows: Row[] = [];
  for (const level of result.levels) {
    const at = level.callers === 1 ? 'sequential' : `${level.callers} concurrent callers`;
    rows.push(
      { section: 'sdk', metric: `SDK train(), Runtime object, ${at}`, value: pair(level.sdk.object) },
      { section: 'sdk', metric: `SDK train(), runtime by name, ${at}`, value: pair(level.sdk.name) },
      { section: 'sdk', metric: `plain Start, ${at}`, value: pair(level.start) },
    );
    if (level.cpu)
      rows.push(
        {
          section: 'sdk',
          metric: `  CPU per TrainJob at ${level.callers}, SDK`,
          value: describePerUnit(level.cpu.sdk),
        },
        {
          section: 'sdk',
          metric: `  CPU per TrainJob at ${level.callers}, Start`,
          value: describePerUnit(level.cpu.start),
        },
      );
  }
  rows.push(
    {
      section: 'sdk',
      metric: 'API calls per TrainJob, SDK, Runtime object',
      value: describeCalls(result.calls.sdkObject),
    },
    {
      section: 'sdk',
      metric: 'API calls per TrainJob, SDK, runtime by name',
      value: describeCalls(result.calls.sdkName),
    },
    {
      section: 'sdk',
      metric: "API calls per TrainJob, Start (the worker's)",
      value: describeCalls(result.calls.start),
    },
    { section: 'sdk', metric: 'API calls per TrainerClient()', value: describeCalls(result.calls.sdkClient) },
    {
      section: 'sdk',
      metric: "Start's durable history",
      value: `${result.startHistoryEvents} events in Temporal`,
    },
    { section: 'sdk', metric: "what lands, SDK's TrainJob", value: result.landed.sdk },
    { section: 'sdk', metric: "what lands, Start's TrainJob", value: result.landed.start },
    {
      section: 'sdk',
      metric: 'peer',
      value: `kubeflow ${result.kubeflow} on ${result.python}; callers are threads of one process, a TrainerClient each; ${result.deleted} SDK TrainJobs deleted after`,
    },
  );
  return rows;
}
