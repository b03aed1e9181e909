// Operations: what each operation after Start (docs/operations.md) costs its caller, client call to
// answer, on a plain-mode worker. One TrainJob at a time goes through its whole life: Start, Open
// (Gated -> Running), Open again (nothing to do), Hold once its pods run (Running -> Held),
// Release (Held -> Running), Stop (-> Absent), and Watch on the stopped TrainJob (-> Absent at its
// first read: Watch's fixed cost, without its 3 s checks). The TrainJobs run on a runtime whose
// pods KWOK keeps running for 300 s, so Hold acts on a running job; one at a time, because one
// job's 2 x 8 GPUs fill both KWOK nodes.
import type { WorkflowHandle } from '@temporalio/client';
import { createKubeClients } from '../src/kube/clients.js';
import type { Operation } from '../src/contract/names.js';
import type { Outcome, TrainJobRef, TrainJobState } from '../src/model/operations.js';
import { kubeConfigFor } from '../dev/harness/kube-access.js';
import { refOf, runFor } from '../test/integration/operations/support.js';
import { podsOfJob } from '../test/integration/support/operations.js';
import { runtimeFixtures } from '../test/integration/support/runtimes.js';
import { startRequest } from '../test/support/requests.js';
import type { BenchEnv } from './env.js';
import { timed, untilTrue } from './observe.js';
import { cpuBetween, cpuSnapshot, describeShare } from './proc.js';
import type { BenchSettings } from './settings.js';
import { describeTail, fixed, mib, tail, type Row, type Tail } from './stats.js';
import { cpuSeconds } from './worker-handle.js';

/** How long KWOK runs the pods: longer than any job stays in the bench. */
const RUN_FOR = '300s';
/** How long a Hold waits for the job's pods to run before it holds the job anyway (and says so). */
const PODS_RUNNING_MS = 60_000;

/** The operations in the order a job meets them, each with the phase it should answer. */
const STEPS = [
  { label: 'Open', op: 'open', phase: 'Running' },
  { label: 'Open again', op: 'open', phase: 'Running' },
  { label: 'Hold', op: 'hold', phase: 'Held' },
  { label: 'Release', op: 'release', phase: 'Running' },
  { label: 'Stop', op: 'stop', phase: 'Absent' },
  { label: 'Watch a stopped job', op: 'watch', phase: 'Absent' },
] as const satisfies readonly { label: string; op: Operation; phase: string }[];

type Label = 'Start' | (typeof STEPS)[number]['label'];

export interface OperationsResult {
  jobs: number;
  /** Client call to answer, in ms, per operation. */
  latency: Record<Label, Tail>;
  /** History events of each operation's workflow, in the first measured job. */
  events: Record<Label, number>;
  /** Holds made before every pod of the job ran (PODS_RUNNING_MS passed). */
  heldBeforePodsRan: number;
  /** How long the pods took to run after Open (not part of any operation's figure). */
  podsRunningAfterOpen: Tail;
  /** Answers with another phase than the step expects ("Hold answered Running"), and failed Starts. */
  unexpected: string[];
  workerCpuMsPerJob: number;
  workerPeakRss: number;
  cpu: string;
}

/** Milliseconds until every pod of the job runs, or undefined after PODS_RUNNING_MS. */
async function podsRunning(env: BenchEnv, namespace: string, jobId: string): Promise<number | undefined> {
  const kc = kubeConfigFor({ ...env.admin, namespace });
  const allRunning = async () => {
    const pods = await podsOfJob(kc, namespace, jobId);
    return pods.length > 0 && pods.every((p) => p.phase === 'Running');
  };
  const [running, ms] = await timed(() => untilTrue(PODS_RUNNING_MS, allRunning, 250));
  return running ? ms : undefined;
}

export async function measureOperations(
  env: BenchEnv,
  settings: BenchSettings,
): Promise<{ rows: Row[]; result: OperationsResult }> {
  const namespace = await env.namespace('operations');
  const config = env.config(namespace);
  const runtime = await runtimeFixtures(createKubeClients(kubeConfigFor(env.admin))).namespaced(
    namespace,
    'run-for',
    runFor(RUN_FOR),
  );
  const worker = await env.worker('operations', config);
  const client = env.client(config);

  const samples = new Map<Label, number[]>();
  const events = {} as Record<Label, number>;
  const podsAfterOpen: number[] = [];
  const unexpected: string[] = [];
  let heldBeforePodsRan = 0;

  /** One job through its life; measured, it records each operation's time (and, the first time, its events). */
  async function life(measured: boolean): Promise<void> {
    const record = async (label: Label, handle: WorkflowHandle, ms: number) => {
      if (!measured) return;
      samples.set(label, [...(samples.get(label) ?? []), ms]);
      if (events[label] === undefined) events[label] = (await handle.fetchHistory()).events?.length ?? 0;
    };
    const request = startRequest({ runtime });
    let ref: TrainJobRef | undefined;
    const [startHandle, startMs] = await timed(async () => {
      const handle = await client.submit(request);
      ref = await handle.result().then(refOf, (error: unknown) => {
        unexpected.push(
          `${measured ? '' : '(warmup) '}Start failed: ${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)}`,
        );
        return undefined;
      });
      return handle;
    });
    if (ref === undefined) return;
    await record('Start', startHandle, startMs);
    for (const step of STEPS) {
      if (step.label === 'Hold') {
        const running = await podsRunning(env, namespace, request.job.toLowerCase());
        if (measured) {
          if (running === undefined) heldBeforePodsRan++;
          else podsAfterOpen.push(running);
        }
      }
      const [[handle, answer], ms] = await timed(async () => {
        const handle = await client.submitOperation(step.op, ref!);
        return [handle, (await handle.result()) as TrainJobState | Outcome] as const;
      });
      if (measured && answer.phase !== step.phase) unexpected.push(`${step.label} answered ${answer.phase}`);
      await record(step.label, handle, ms);
    }
  }

  try {
    for (let i = 0; i < settings.warmup; i++) await life(false);
    const u0 = await worker.resetPeak();
    const c0 = cpuSnapshot(env.labels);
    for (let i = 0; i < settings.operationJobs; i++) await life(true);
    const share = cpuBetween(c0, cpuSnapshot(env.labels));
    const u1 = await worker.usage();

    const labels: Label[] = ['Start', ...STEPS.map((s) => s.label)];
    const result: OperationsResult = {
      jobs: settings.operationJobs,
      latency: Object.fromEntries(labels.map((l) => [l, tail(samples.get(l) ?? [])])) as Record<Label, Tail>,
      events,
      heldBeforePodsRan,
      podsRunningAfterOpen: tail(podsAfterOpen),
      unexpected,
      workerCpuMsPerJob: (cpuSeconds(u0, u1) * 1000) / Math.max(1, settings.operationJobs),
      workerPeakRss: u1.peakRss,
      cpu: describeShare(share),
    };
    const rows: Row[] = [
      ...labels.map((label) => ({
        section: 'operations',
        metric: label === 'Start' ? 'plain Start, client call to result' : `${label}, client call to answer`,
        value: `${describeTail(result.latency[label])}; ${events[label] ?? 'n/a'} events`,
      })),
      {
        section: 'operations',
        metric: "  Hold on a running job: the job's pods running after Open",
        value:
          `${describeTail(result.podsRunningAfterOpen)} (waited for, not part of any operation)` +
          `${heldBeforePodsRan ? `; ${heldBeforePodsRan} held before their pods ran` : ''}`,
      },
      {
        section: 'operations',
        metric: 'unexpected answers (another phase, a failed Start)',
        value: unexpected.length === 0 ? 'none' : unexpected.join('; '),
      },
      {
        section: 'operations',
        metric: 'worker per job (Start and 6 operations, sequential)',
        value: `${fixed(result.workerCpuMsPerJob)} ms CPU; peak RSS ${mib(result.workerPeakRss)}`,
      },
      { section: 'operations', metric: '  CPU during the run (cores)', value: result.cpu },
    ];
    return { rows, result };
  } finally {
    await worker.stop();
  }
}
