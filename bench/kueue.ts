// Kueue: a Kueue-mode job's way from Start to running pods on the real Kueue, with dispatch's
// admission check controller in the bench worker (worker-child.ts runs it, as the product's run()
// does), and what of that way is Kueue's own, what dispatch's controller's, and what the rest of
// the stack's. One job at a time (its 2 x 8 GPUs fill both KWOK nodes): Start, Open, its pods
// running, Stop, and the next once the last one's pods and Workload are gone. The namespace gets a
// ClusterQueue of its own (the sample's: one job's 16 GPUs, dispatch's AdmissionCheck), as
// test/integration/operations/kueue-operations.test.ts does. Watches of the namespace's TrainJobs,
// Workloads and pods note when each change is first seen (the bench's clock, to the ms); the
// objects' own lastTransitionTimes, written to the second, say who wrote what when.
import { CustomObjectsApi, Watch } from '@kubernetes/client-node';
import { createKubeClients } from '../src/kube/clients.js';
import { Annotations, Kueue, Labels, Trainer } from '../src/model/constants.js';
import type { TrainJobRef, TrainJobState } from '../src/model/operations.js';
import { CheckStates, WorkloadConditions } from '../src/model/constants.js';
import { kubeConfigFor } from '../dev/harness/kube-access.js';
import { KUEUE_SAMPLE_CHECK, kueueSamplesDir, readSamples } from '../dev/harness/samples.js';
import { refOf, runFor } from '../test/integration/operations/support.js';
import { runtimeFixtures } from '../test/integration/support/runtimes.js';
import { startRequest } from '../test/support/requests.js';
import type { BenchEnv } from './env.js';
import { KUEUE } from './history.js';
import { timed, untilTrue } from './observe.js';
import { cpuBetween, cpuSnapshot, describeShare } from './proc.js';
import type { BenchSettings } from './settings.js';
import { describeTail, tail, type Row, type Tail } from './stats.js';
import { DEFAULT_ADMISSION_INTERVAL_MS } from '../src/worker/admission-controller.js';

/** How long KWOK runs the pods: longer than any job stays in the bench. */
const RUN_FOR = '300s';
/** How long a job may take from Open to its pods running, and from Stop to its pods and Workload gone. */
const STAGE_MS = 120_000;
export const LOCAL_QUEUE = 'bench';
const KUEUE_API = { group: Kueue.group, version: 'v1beta2' };

/** What the watches saw of one job: when each thing was first seen (Date.now()). */
interface Seen {
  trainJob?: number;
  workload?: number;
  /** The Workload listing dispatch's admission check (what step 9 waits for). */
  checkListed?: number;
  /** The Workload's admission-gated-by without dispatch's gate (Kueue copies it from the TrainJob). */
  workloadUngated?: number;
  quotaReserved?: number;
  checkReady?: number;
  admitted?: number;
  unsuspended?: number;
  /** Every pod of the job Running (as many as the most seen at once). */
  podsRunning?: number;
  workloadGone?: number;
  /** The objects' own times, to the second (ms since the epoch): Kueue's conditions, dispatch's check. */
  stamped: { quotaReserved?: number; checkReady?: number; admitted?: number };
}

type Condition = { type?: string; status?: string; lastTransitionTime?: string };
type KueueObject = {
  metadata?: {
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec?: { suspend?: boolean };
  status?: {
    conditions?: Condition[];
    admissionChecks?: { name?: string; state?: string; lastTransitionTime?: string }[];
    phase?: string;
  };
};

const conditionTrue = (obj: KueueObject, type: string) =>
  obj.status?.conditions?.find((c) => c.type === type && c.status === 'True');
const stampOf = (time: string | undefined) => (time ? Date.parse(time) : undefined);

/** Watches one namespace's TrainJobs, Workloads and pods, and notes per TrainJob UID when each change is first seen. */
class Sightings {
  readonly jobs = new Map<string, Seen>();
  /** TrainJob UID by job-id label (pods carry the job-id, not the UID). */
  private readonly uidOfJobId = new Map<string, string>();
  private readonly pods = new Map<string, Map<string, string>>();
  private readonly mostRunning = new Map<string, number>();
  private readonly watches: AbortController[] = [];
  private stopped = false;

  constructor(
    private readonly env: BenchEnv,
    private readonly namespace: string,
    private readonly gate: string,
  ) {}

  of(uid: string): Seen {
    let seen = this.jobs.get(uid);
    if (!seen) this.jobs.set(uid, (seen = { stamped: {} }));
    return seen;
  }

  async start(): Promise<void> {
    const ns = this.namespace;
    await Promise.all([
      this.watch(
        `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns}/${Trainer.trainJobPlural}`,
        (type, o) => this.onTrainJob(o),
      ),
      this.watch(
        `/apis/${Kueue.group}/${KUEUE_API.version}/namespaces/${ns}/${Kueue.workloadPlural}`,
        (type, o) => this.onWorkload(type, o),
      ),
      this.watch(`/api/v1/namespaces/${ns}/pods`, (type, o) => this.onPod(type, o)),
    ]);
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watches) w.abort();
  }

  private async watch(path: string, handle: (type: string, object: KueueObject) => void): Promise<void> {
    const controller = await new Watch(kubeConfigFor(this.env.admin)).watch(
      path,
      {},
      (type: string, object: KueueObject) => handle(type, object),
      () => {
        // A watch ends on the server's timeout too; watch again (ADDED for all that exists, seen once).
        if (!this.stopped) setTimeout(() => void this.watch(path, handle), 200);
      },
    );
    this.watches.push(controller);
  }

  private onTrainJob(o: KueueObject): void {
    const uid = o.metadata?.uid;
    if (!uid) return;
    const jobId = o.metadata?.labels?.[Labels.jobId];
    if (jobId) this.uidOfJobId.set(jobId, uid);
    const seen = this.of(uid);
    const now = Date.now();
    seen.trainJob ??= now;
    if (o.spec?.suspend === false) seen.unsuspended ??= now;
  }

  private onWorkload(type: string, o: KueueObject): void {
    const uid = o.metadata?.labels?.[Labels.kueueJobUid];
    if (!uid) return;
    const seen = this.of(uid);
    const now = Date.now();
    if (type === 'DELETED') {
      seen.workloadGone ??= now;
      return;
    }
    seen.workload ??= now;
    const check = o.status?.admissionChecks?.find((c) => c.name === KUEUE_SAMPLE_CHECK);
    if (check) seen.checkListed ??= now;
    const gatedBy = o.metadata?.annotations?.[Annotations.kueueAdmissionGatedBy] ?? '';
    if (
      !gatedBy
        .split(',')
        .map((g) => g.trim())
        .includes(this.gate)
    )
      seen.workloadUngated ??= now;
    const quota = conditionTrue(o, WorkloadConditions.quotaReserved);
    if (quota) {
      seen.quotaReserved ??= now;
      seen.stamped.quotaReserved ??= stampOf(quota.lastTransitionTime);
    }
    if (check?.state === CheckStates.ready) {
      seen.checkReady ??= now;
      seen.stamped.checkReady ??= stampOf(check.lastTransitionTime);
    }
    const admitted = conditionTrue(o, WorkloadConditions.admitted);
    if (admitted) {
      seen.admitted ??= now;
      seen.stamped.admitted ??= stampOf(admitted.lastTransitionTime);
    }
  }

  private onPod(type: string, o: KueueObject & { metadata?: { name?: string } }): void {
    const jobId = o.metadata?.labels?.[Labels.jobId];
    const name = o.metadata?.name;
    if (!jobId || !name) return;
    const pods = this.pods.get(jobId) ?? new Map<string, string>();
    this.pods.set(jobId, pods);
    if (type === 'DELETED') pods.delete(name);
    else pods.set(name, o.status?.phase ?? '');
    const running = [...pods.values()].filter((p) => p === 'Running').length;
    const uid = this.uidOfJobId.get(jobId);
    if (uid === undefined || running === 0 || running < pods.size) return;
    // Every pod seen runs; the first time as many run as ever did is when the job ran.
    if (running > (this.mostRunning.get(jobId) ?? 0)) {
      this.mostRunning.set(jobId, running);
      this.of(uid).podsRunning = Date.now();
    }
  }

  podsLeft(jobId: string): number {
    return this.pods.get(jobId)?.size ?? 0;
  }
}

export interface KueueResult {
  jobs: number;
  /** Client call to answer, in ms. */
  start: Tail;
  open: Tail;
  /** Open's answers by phase. */
  openPhases: Record<string, number>;
  /** Within a Start: its TrainJob seen to its Workload seen, and to its Workload listing the check (Kueue's). */
  workloadAfterTrainJob: Tail;
  checkListedAfterTrainJob: Tail;
  /** After Open answered, each stage seen (ms), in order. */
  stages: Record<Stage, Tail>;
  /** From the objects' own lastTransitionTimes (1 s resolution): how many jobs had each gap, in whole seconds. */
  stamped: { quotaToCheckReady: Record<string, number>; checkReadyToAdmitted: Record<string, number> };
  unexpected: string[];
  cpu: string;
}

const STAGES = [
  { key: 'quotaReserved', label: 'QuotaReserved', from: 'open', who: "Kueue's scheduler" },
  { key: 'checkReady', label: 'check Ready', from: 'quotaReserved', who: "dispatch's controller" },
  { key: 'admitted', label: 'Admitted', from: 'checkReady', who: 'Kueue' },
  {
    key: 'unsuspended',
    label: 'TrainJob unsuspended',
    from: 'admitted',
    who: "Kueue's TrainJob integration",
  },
  {
    key: 'podsRunning',
    label: 'pods Running',
    from: 'unsuspended',
    who: 'Trainer, JobSet, Job controller, scheduler, KWOK',
  },
] as const;
type Stage = (typeof STAGES)[number]['key'] | 'openToRunning' | 'startToAdmitted';

/** How many gaps (ms, between times written to the second) fall on each whole second: `{ "0 s": 12, "1 s": 8 }`. */
const bySecond = (gaps: readonly number[]): Record<string, number> =>
  gaps.reduce<Record<string, number>>((counts, gap) => {
    const key = `${Math.round(gap / 1000)} s`;
    return { ...counts, [key]: (counts[key] ?? 0) + 1 };
  }, {});

/**
 * The namespace's own ClusterQueue (the sample's, deploy/samples/kueue: one job's 16 GPUs and
 * dispatch's check, for this namespace alone) and LocalQueue; answers how to delete the ClusterQueue.
 */
export async function queuesFor(env: BenchEnv, namespace: string): Promise<() => Promise<void>> {
  const api = kubeConfigFor(env.admin).makeApiClient(CustomObjectsApi);
  const name = `bench-${namespace}`;
  const sample = (await readSamples(kueueSamplesDir)).find((o) => o.kind === 'ClusterQueue');
  if (sample === undefined) throw new Error(`no ClusterQueue among the samples in ${kueueSamplesDir}`);
  const spec = sample.spec as Record<string, unknown>;
  await api.createClusterCustomObject({
    ...KUEUE_API,
    plural: 'clusterqueues',
    body: {
      ...sample,
      metadata: { name },
      spec: { ...spec, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } },
    },
  });
  await api.createNamespacedCustomObject({
    ...KUEUE_API,
    namespace,
    plural: 'localqueues',
    body: {
      apiVersion: `${Kueue.group}/${KUEUE_API.version}`,
      kind: 'LocalQueue',
      metadata: { name: LOCAL_QUEUE },
      spec: { clusterQueue: name },
    },
  });
  return async () => {
    await api
      .deleteClusterCustomObject({ ...KUEUE_API, plural: 'clusterqueues', name })
      .catch(() => undefined);
  };
}

export async function measureKueue(
  env: BenchEnv,
  settings: BenchSettings,
): Promise<{ rows: Row[]; result: KueueResult }> {
  const namespace = await env.namespace('kueue');
  const deleteQueues = await queuesFor(env, namespace);
  const config = env.config(namespace, {
    ...KUEUE,
    kueue: { ...KUEUE.kueue, queue: LOCAL_QUEUE },
    timeouts: { workload: '60s', call: '30s' },
  });
  const runtime = await runtimeFixtures(createKubeClients(kubeConfigFor(env.admin))).namespaced(
    namespace,
    'run-for',
    runFor(RUN_FOR),
  );
  const sightings = new Sightings(env, namespace, config.kueue.gate);
  await sightings.start();
  const worker = await env.worker('kueue', config);
  const client = env.client(config);

  const startMs: number[] = [];
  const openMs: number[] = [];
  const startAt = new Map<string, number>();
  const openAt = new Map<string, number>();
  const openPhases: Record<string, number> = {};
  const unexpected: string[] = [];
  const measuredUids: string[] = [];

  /** Stops the job and waits until its pods and Workload are gone, so that the next one has the nodes and the quota. */
  async function stop(ref: TrainJobRef, jobId: string): Promise<void> {
    const stopped = (await (await client.submitOperation('stop', ref)).result()) as TrainJobState;
    if (stopped.phase !== 'Absent') unexpected.push(`${ref.name}: Stop answered ${stopped.phase}`);
    const seen = sightings.of(ref.uid);
    if (
      !(await untilTrue(
        STAGE_MS,
        () => seen.workloadGone !== undefined && sightings.podsLeft(jobId) === 0,
        100,
      ))
    ) {
      unexpected.push(`${ref.name}: pods or Workload still there ${STAGE_MS / 1000} s after Stop`);
    }
  }

  /** One job: Start, Open, its pods running, Stop, and its pods and Workload gone; measured, its times are kept. */
  async function job(measured: boolean): Promise<void> {
    const request = startRequest({ runtime });
    const jobId = request.job.toLowerCase();
    const calledAt = Date.now();
    const [ref, startedMs] = await timed(async () =>
      refOf(await (await client.submit(request)).result()),
    ).catch((error: unknown) => {
      const why =
        error instanceof Error
          ? ((error.cause as Error | undefined)?.message ?? error.message)
          : String(error);
      unexpected.push(`${measured ? '' : '(warmup) '}Start failed: ${why}`);
      return [undefined, 0] as const;
    });
    if (ref === undefined) return;
    const [state, openedMs] = await timed(
      async () => (await (await client.submitOperation('open', ref)).result()) as TrainJobState,
    );
    if (measured) {
      measuredUids.push(ref.uid);
      startAt.set(ref.uid, calledAt);
      openAt.set(ref.uid, Date.now());
      startMs.push(startedMs);
      openMs.push(openedMs);
      openPhases[state.phase] = (openPhases[state.phase] ?? 0) + 1;
    }
    const seen = sightings.of(ref.uid);
    if (!(await untilTrue(STAGE_MS, () => seen.podsRunning !== undefined, 50))) {
      unexpected.push(`${ref.name}: pods not all Running ${STAGE_MS / 1000} s after Open`);
    }
    await stop(ref, jobId);
  }

  try {
    for (let i = 0; i < settings.warmup; i++) await job(false);
    const c0 = cpuSnapshot(env.labels);
    for (let i = 0; i < settings.kueueJobs; i++) await job(true);
    const share = cpuBetween(c0, cpuSnapshot(env.labels));

    const seens = measuredUids.map((uid) => [sightings.of(uid), openAt.get(uid), startAt.get(uid)] as const);
    const gaps = (
      pick: (
        s: Seen,
        open: number | undefined,
        start: number | undefined,
      ) => [number | undefined, number | undefined],
    ) =>
      seens.flatMap(([s, open, start]) => {
        const [from, to] = pick(s, open, start);
        return from !== undefined && to !== undefined ? [to - from] : [];
      });
    const between = (pick: Parameters<typeof gaps>[0]) => tail(gaps(pick));
    const stages = Object.fromEntries([
      ...STAGES.map((stage) => [
        stage.key,
        between((s, open) => [stage.from === 'open' ? open : s[stage.from], s[stage.key]]),
      ]),
      ['openToRunning', between((s, open) => [open, s.podsRunning])],
      ['startToAdmitted', between((s, _open, start) => [start, s.admitted])],
    ]) as Record<Stage, Tail>;
    const result: KueueResult = {
      jobs: settings.kueueJobs,
      start: tail(startMs),
      open: tail(openMs),
      openPhases,
      workloadAfterTrainJob: between((s) => [s.trainJob, s.workload]),
      checkListedAfterTrainJob: between((s) => [s.trainJob, s.checkListed]),
      stages,
      stamped: {
        quotaToCheckReady: bySecond(gaps((s) => [s.stamped.quotaReserved, s.stamped.checkReady])),
        checkReadyToAdmitted: bySecond(gaps((s) => [s.stamped.checkReady, s.stamped.admitted])),
      },
      unexpected,
      cpu: describeShare(share),
    };
    const phases = Object.entries(openPhases)
      .map(([phase, n]) => `${n} ${phase}`)
      .join(', ');
    const described = (counts: Record<string, number>) =>
      Object.entries(counts)
        .map(([gap, n]) => `${n} x ${gap}`)
        .join(', ');
    const rows: Row[] = [
      {
        section: 'kueue',
        metric: 'Kueue Start, client call to result (step 9 sees the gate and the check)',
        value: describeTail(result.start),
      },
      {
        section: 'kueue',
        metric: "  in it, Kueue's: TrainJob seen to its Workload seen; to the Workload listing the check",
        value: `${describeTail(result.workloadAfterTrainJob)}; ${describeTail(result.checkListedAfterTrainJob)}`,
      },
      {
        section: 'kueue',
        metric: 'Open, client call to answer (gate removed)',
        value: `${describeTail(result.open)}; answered ${phases}`,
      },
      ...STAGES.map((stage) => ({
        section: 'kueue',
        metric: `  ${stage.from === 'open' ? 'Open answered' : STAGES.find((s) => s.key === stage.from)!.label} to ${stage.label} (${stage.who})`,
        value: describeTail(stages[stage.key]),
      })),
      {
        section: 'kueue',
        metric: 'Open answered to pods Running, in all',
        value: describeTail(stages.openToRunning),
      },
      {
        section: 'kueue',
        metric: 'Start called to Admitted (Open called as Start answered)',
        value: describeTail(stages.startToAdmitted),
      },
      {
        section: 'kueue',
        metric:
          "  the objects' own times (1 s resolution): QuotaReserved to check Ready; check Ready to Admitted",
        value:
          `${described(result.stamped.quotaToCheckReady)}; ${described(result.stamped.checkReadyToAdmitted)} ` +
          `(dispatch's controller passes every ${DEFAULT_ADMISSION_INTERVAL_MS} ms, and as soon as a Workload changes)`,
      },
      {
        section: 'kueue',
        metric: 'unexpected (a failed Start, pods not running, a Stop not Absent)',
        value: unexpected.length === 0 ? 'none' : unexpected.join('; '),
      },
      { section: 'kueue', metric: '  CPU during the run (cores)', value: result.cpu },
    ];
    return { rows, result };
  } finally {
    sightings.stop();
    await worker.stop();
    await deleteQueues();
  }
}
