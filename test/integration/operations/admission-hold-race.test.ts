// A Hold racing dispatch's admission check controller on the real Kueue (docs/contract.md §9: the
// controller never readies a held job). The race is made to happen every time: the controller's
// calls go through an interceptor that lands a Hold's first write at an exact point of the
// controller's pass. A watch of the namespace's Workloads, TrainJobs and pods records every version
// from before the first Start.
// - After the controller listed the TrainJobs (its list, or the watch-fed copy, shows the TrainJob
//   unheld) and before it reads the TrainJob: the `held` annotation by hand (a Hold's first write
//   when it has no Workload to write first), then the real Hold finds it there. Never readied, never
//   admitted, never unsuspended, no pod, while an unraced TrainJob beside them runs.
// - Between its read of the TrainJob and its Ready write: the product's Hold workflow runs, and the
//   Ready write is sent once the Hold's first write has landed. In Kueue mode, with the Workload
//   read, the Hold makes the Workload inactive before it marks the TrainJob (patch
//   hold-deactivates-workload-first), so the Ready write fails its resourceVersion test: never
//   admitted, no pod. (The Hold from before the patch marked the TrainJob first: the Ready applied,
//   the controller took it back, and Kueue had admitted first in 12 of 24, with pods in 3.)
// - The same point, the Hold's two writes made by hand in that order (the Workload inactive, then
//   the annotation): the Ready write fails its resourceVersion test, nothing is admitted, no pod.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUEUE_SAMPLE_CHECK } from '../../../dev/harness/samples.js';
import type { KubeClients } from '../../../src/kube/clients.js';
import { CheckStates, Kueue, Labels, OperationAnnotations, OperationAnnotationValues, Trainer } from '../../../src/model/constants.js';
import type { JsonPatchOp, KubeObject, TrainJob, Workload } from '../../../src/model/kube.js';
import type { TrainJobRef, TrainJobState } from '../../../src/model/operations.js';
import { createAdmissionController, type AdmissionController } from '../../../src/worker/admission-controller.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, kubeConfig, uniqueName, type TestNamespace } from '../support/kube.js';
import { createOneJobQueue, REAL_KUEUE_CONFIG, until, workloadOf } from '../support/operations.js';
import { readTrainJob, refOf } from './support.js';

/** One node of one GPU: the queue's 16 GPUs hold every raced job and the control at once. */
const SMALL = { spec: { nodes: 1, gpusPerNode: 1 } };
const RACES = 6;
const kueue = { group: Kueue.group, version: 'v1beta2' };

/** One version of an object as the watch delivered it, with when it came. */
interface Seen {
  at: number;
  kind: 'Workload' | 'TrainJob' | 'Pod';
  type: string;
  object: KubeObject;
}

/** Every version of the namespace's Workloads, TrainJobs and pods, from before the first Start. */
class Recorder {
  readonly seen: Seen[] = [];
  private readonly stops: AbortController[] = [];
  private stopped = false;

  async start(namespace: string): Promise<void> {
    const paths: [Seen['kind'], string][] = [
      ['Workload', `/apis/${Kueue.group}/v1beta2/namespaces/${namespace}/${Kueue.workloadPlural}`],
      ['TrainJob', `/apis/${Trainer.group}/${Trainer.version}/namespaces/${namespace}/${Trainer.trainJobPlural}`],
      ['Pod', `/api/v1/namespaces/${namespace}/pods`],
    ];
    await Promise.all(paths.map(([kind, path]) => this.watch(kind, path)));
  }

  private async watch(kind: Seen['kind'], path: string, resourceVersion?: string): Promise<void> {
    const stop = await new Watch(kubeConfig()).watch(
      path,
      resourceVersion ? { resourceVersion } : {},
      (type: string, object: KubeObject) => this.seen.push({ at: Date.now(), kind, type, object }),
      () => {
        // A watch the server ends is taken up again from the last version seen: nothing is missed.
        if (this.stopped) return;
        const last = this.seen.filter((s) => s.kind === kind).at(-1)?.object.metadata?.resourceVersion;
        void this.watch(kind, path, last);
      },
    );
    this.stops.push(stop);
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.stops) s.abort();
  }

  of(kind: Seen['kind'], match: (o: KubeObject) => boolean): Seen[] {
    return this.seen.filter((s) => s.kind === kind && match(s.object));
  }
}

const checkOf = (w: KubeObject) => (w as Workload).status?.admissionChecks?.find((c) => c.name === KUEUE_SAMPLE_CHECK);
const isTrue = (o: KubeObject, type: string) =>
  ((o.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
const setsReady = (body: unknown) =>
  Array.isArray(body) &&
  (body as JsonPatchOp[]).some((op) => op.op === 'replace' && (op.value as { name?: string; state?: string } | undefined)?.state === CheckStates.ready);

/** The job-id label of a TrainJob, which the runtime patch puts on each of its pods. */
async function jobIdOf(kube: KubeClients, ref: TrainJobRef): Promise<string> {
  const jobId = (await readTrainJob(kube, ref))?.metadata.labels?.[Labels.jobId];
  if (!jobId) throw new Error(`TrainJob ${ref.name} has no ${Labels.jobId} label`);
  return jobId;
}
const podOf = (jobId: string) => (p: KubeObject) => p.metadata?.labels?.[Labels.jobId]?.toLowerCase() === jobId.toLowerCase();

/**
 * Where the Hold's first write lands in the controller's pass. `after-list`: the annotation by hand;
 * `before-write`: the product's Hold, between its read and its Ready write; `workload-first`: there
 * too, the Hold's two writes by hand, the Workload inactive first.
 */
type Point = 'after-list' | 'before-write' | 'workload-first';

interface Race {
  ref: TrainJobRef;
  jobId: string;
  workload: string;
  point: Point;
  /** When the Hold's first write landed (ms). */
  heldAt?: number;
  /** Whether a Ready write of the controller applied (undefined: none was made). */
  readyApplied?: boolean;
  /** The controller's passes that had ended when the race happened. */
  passesEndedAt?: number;
  /** before-write: the product's Hold, started between the controller's read and its Ready write. */
  hold?: Promise<TrainJobState>;
  /** before-write: which of the Hold's writes was seen first. */
  firstWrite?: 'Workload inactive' | 'TrainJob held';
  /** Resolved once the Hold's first write has landed (and, before-write, the Ready write was answered). */
  raced: Promise<void>;
  settle: () => void;
}

describe('a Hold racing the admission check controller, on the real Kueue', () => {
  let ns: TestNamespace;
  let h: DispatchHarness;
  let controller: AdmissionController;
  let recorder: Recorder;
  const stopController = new AbortController();
  let running: Promise<void> | undefined;
  let clusterQueue: string;
  const localQueue = 'hold-race';
  /** The raced Workloads by name. */
  const races = new Map<string, Race>();
  const passesEnded = () => controller.counters.complete + controller.counters.incomplete;

  /** Hold's first write, as the Hold workflow makes it: the held annotation on the TrainJob. */
  async function holdMark(race: Race): Promise<void> {
    await h.kube.custom.patchNamespacedCustomObject(
      {
        group: Trainer.group,
        version: Trainer.version,
        plural: Trainer.trainJobPlural,
        namespace: race.ref.namespace,
        name: race.ref.name,
        body: { metadata: { annotations: { [OperationAnnotations.held]: OperationAnnotationValues.held } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    race.heldAt = Date.now();
    race.passesEndedAt = passesEnded();
  }

  /** The Hold's second write (spec.active false on the Workload), made first by workload-first races. */
  async function deactivate(race: Race): Promise<void> {
    await h.kube.custom.patchNamespacedCustomObject(
      { ...kueue, plural: Kueue.workloadPlural, namespace: race.ref.namespace, name: race.workload, body: { spec: { active: false } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  /**
   * before-write: the product's Hold starts, and returns once its first write is seen (the watch's
   * versions, every 5 ms): the Workload made inactive, or the TrainJob marked held.
   */
  async function holdThroughProduct(race: Race): Promise<void> {
    race.hold = h.client.hold(race.ref);
    race.hold.catch(() => undefined);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const inactive = recorder.of('Workload', (o) => o.metadata?.name === race.workload).some((v) => (v.object as Workload).spec?.active === false);
      const marked = recorder
        .of('TrainJob', (o) => o.metadata?.uid === race.ref.uid)
        .some((v) => v.object.metadata?.annotations?.[OperationAnnotations.held] === OperationAnnotationValues.held);
      if (inactive || marked) {
        race.firstWrite = inactive ? 'Workload inactive' : 'TrainJob held';
        break;
      }
      if (Date.now() > deadline) throw new Error(`timed out after 30000 ms waiting for the first write of the Hold of ${race.workload}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    race.heldAt = Date.now();
    race.passesEndedAt = passesEnded();
  }

  /** after-list: the Workload, as the API server holds it now, is one the controller would ready. */
  async function aboutToBeReadied(race: Race): Promise<boolean> {
    const w = await workloadOf(h.kube, ns.name, race.ref.uid);
    return w !== undefined && w.spec?.active !== false && isTrue(w, 'QuotaReserved') && checkOf(w)?.state === CheckStates.pending;
  }

  /**
   * The controller's clients. A TrainJob list answered: the after-list races whose Workload is now
   * reserved and Pending are held before the answer returns. A Ready write of a before-write race:
   * held first, then sent.
   */
  function intercepting(kube: KubeClients): KubeClients {
    const call = (target: object, value: unknown, args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
    const custom = new Proxy(kube.custom, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (prop === 'listNamespacedCustomObject') {
          return async (...args: unknown[]) => {
            const answer = await call(target, value, args);
            if ((args[0] as { plural?: string }).plural !== Trainer.trainJobPlural) return answer;
            for (const race of races.values()) {
              if (race.point !== 'after-list' || race.heldAt !== undefined || !(await aboutToBeReadied(race))) continue;
              await holdMark(race);
              race.settle();
            }
            return answer;
          };
        }
        if (prop === 'patchNamespacedCustomObjectStatus') {
          return async (...args: unknown[]) => {
            const params = args[0] as { plural: string; name: string; body: unknown };
            const race = params.plural === Kueue.workloadPlural ? races.get(params.name) : undefined;
            if (race === undefined || !setsReady(params.body)) return call(target, value, args);
            const racing = race.point !== 'after-list' && race.heldAt === undefined;
            if (racing && race.point === 'before-write') await holdThroughProduct(race);
            if (racing && race.point === 'workload-first') await deactivate(race);
            if (racing && race.point === 'workload-first') await holdMark(race);
            try {
              const answer = await call(target, value, args);
              race.readyApplied = true;
              return answer;
            } catch (error) {
              race.readyApplied ??= false;
              throw error;
            } finally {
              if (racing) race.settle();
            }
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    return { ...kube, custom };
  }

  /** Starts `RACES` raced TrainJobs and one control, and opens them all at once. */
  async function startRaces(point: Point): Promise<{ control: TrainJobRef; raced: Race[] }> {
    const starts = await Promise.all(Array.from({ length: RACES + 1 }, () => h.client.startTrainJob(startRequest(SMALL))));
    const [control, ...refs] = starts.map(refOf);
    const raced = await Promise.all(
      refs.map(async (ref) => {
        const workload = (await until(`the Workload of ${ref.name}`, 30_000, () => workloadOf(h.kube, ns.name, ref.uid))).metadata!.name!;
        let settle!: () => void;
        const raced = new Promise<void>((resolve) => (settle = resolve));
        const race: Race = { ref, jobId: await jobIdOf(h.kube, ref), workload, point, raced, settle };
        races.set(workload, race);
        return race;
      }),
    );
    await Promise.all([control!, ...refs].map((ref) => h.client.open(ref)));
    return { control: control!, raced };
  }

  /** The pipeline was live all along: the unraced job, opened with them, is admitted and gets its pods. */
  async function controlRuns(control: TrainJobRef): Promise<void> {
    const jobId = await jobIdOf(h.kube, control);
    await until('the unraced job to get its pods', 90_000, async () => (recorder.of('Pod', podOf(jobId)).length > 0 ? true : undefined));
  }

  /** What each raced job went through, from every version the watch delivered. */
  function outcomes(raced: Race[]) {
    return raced.map((race) => {
      const versions = recorder.of('Workload', (o) => o.metadata?.name === race.workload);
      const readyIndex = versions.findIndex((v) => checkOf(v.object)?.state === CheckStates.ready);
      const after = readyIndex < 0 ? undefined : versions.slice(readyIndex).find((v) => checkOf(v.object)?.state !== CheckStates.ready);
      return {
        workload: race.workload,
        held: race.heldAt !== undefined,
        readyWrite: race.readyApplied === undefined ? 'none' : race.readyApplied ? 'applied' : 'refused',
        readyStoodMs: readyIndex < 0 || after === undefined ? undefined : after.at - versions[readyIndex]!.at,
        /** The check's first state after Ready, and its message. */
        thenCheck: after === undefined ? undefined : `${checkOf(after.object)?.state}: ${checkOf(after.object)?.message}`,
        admitted: versions.filter((v) => isTrue(v.object, 'Admitted')).length,
        unsuspended: recorder.of('TrainJob', (o) => o.metadata?.uid === race.ref.uid).filter((v) => (v.object as TrainJob).spec?.suspend === false).length,
        pods: [...new Set(recorder.of('Pod', podOf(race.jobId)).map((p) => p.object.metadata?.name))],
      };
    });
  }

  const show = (what: string, found: ReturnType<typeof outcomes>) =>
    console.log(
      `[hold-race] ${what}; the controller's writes so far: Ready ${controller.counters.readyWrites}, undo ${controller.counters.undoWrites}, stale ${controller.counters.stale}\n` +
        found
          .map((o) => `  ${o.workload}: Ready write ${o.readyWrite}, stood ${o.readyStoodMs ?? '-'} ms, then ${o.thenCheck ?? '-'}; Admitted versions ${o.admitted}, unsuspended versions ${o.unsuspended}, pods ${o.pods.length}`)
          .join('\n'),
    );

  /** Every raced Workload reaches the state a Hold leaves: inactive (its second write), then, if `quota`, holding no quota. */
  async function heldDown(raced: Race[], quota: boolean): Promise<void> {
    for (const race of raced) {
      await until(`Workload ${race.workload} to be inactive${quota ? ' with no quota' : ''}`, 90_000, async () => {
        const w = await workloadOf(h.kube, ns.name, race.ref.uid);
        return w?.spec?.active === false && (!quota || !isTrue(w, 'QuotaReserved')) ? true : undefined;
      });
    }
  }

  beforeAll(async () => {
    ns = await freshNamespace('hold-race');
    clusterQueue = uniqueName('hold-race');
    await createOneJobQueue(kubeConfig(), { namespace: ns.name, clusterQueue, localQueue, admissionCheck: KUEUE_SAMPLE_CHECK });
    recorder = new Recorder();
    await recorder.start(ns.name);
    // The worker runs Start, Open and Hold; its own controller is off, the test's runs instead.
    h = await startDispatch({
      namespace: ns.name,
      config: { ...REAL_KUEUE_CONFIG, kueue: { ...REAL_KUEUE_CONFIG.kueue, queue: localQueue } },
      admissionController: false,
    });
    controller = createAdmissionController({
      kube: intercepting(h.kube),
      config: h.config,
      requestTimeoutMs: 10_000,
      intervalMs: 200,
      log: (message, fields) => {
        if (message !== 'admission check controller wrote') console.log(`[hold-race] ${message}`, fields ?? '');
      },
    });
    running = controller.run(stopController.signal);
  });
  afterAll(async () => {
    stopController.abort();
    await running;
    recorder?.stop();
    await h?.close();
    await ns?.dispose();
    await kubeConfig()
      .makeApiClient(CustomObjectsApi)
      .deleteClusterCustomObject({ ...kueue, plural: 'clusterqueues', name: clusterQueue })
      .catch(() => undefined);
  });

  it(`held after the controller listed it, before it read it (${RACES} races): never readied, admitted, unsuspended, no pod; an unraced one runs`, async () => {
    const { control, raced } = await startRaces('after-list');
    await Promise.all(
      raced.map(async (race) => {
        await Promise.race([race.raced, until(`the Hold of ${race.workload} to land`, 60_000, async () => undefined)]);
        expect(await h.client.hold(race.ref)).toMatchObject({ phase: 'Held', held: true });
      }),
    );
    await controlRuns(control);
    await heldDown(raced, false);
    const found = outcomes(raced);
    show(`${RACES} Holds after the list`, found);
    expect(found.filter((o) => !o.held || o.readyWrite !== 'none' || o.admitted > 0 || o.unsuspended > 0 || o.pods.length > 0)).toEqual([]);
    await heldDown(raced, true);
  });

  it(`the product's Hold between the controller's read and its Ready write (${RACES} races): the Workload inactive first, the Ready write fails, never admitted, no pod`, async () => {
    const { control, raced } = await startRaces('before-write');
    const answers = await Promise.all(
      raced.map(async (race) => {
        await Promise.race([race.raced, until(`the Ready write of ${race.workload}`, 60_000, async () => undefined)]);
        return race.hold!;
      }),
    );
    await controlRuns(control);
    await heldDown(raced, false);
    const found = outcomes(raced);
    show(`${RACES} Holds between read and write`, found);
    const admitted = found.filter((o) => o.admitted > 0).length;
    const withPods = found.filter((o) => o.pods.length > 0).length;
    console.log(
      `[hold-race] product's Hold between read and write: first writes ${raced.map((r) => r.firstWrite).join(', ')}; ` +
        `admitted ${admitted} of ${RACES}; pods created for ${withPods} of ${RACES}; Hold answered ${answers.map((a) => a.phase).join(', ')}`,
    );
    expect(found.filter((o) => !o.held || o.admitted > 0 || o.unsuspended > 0 || o.pods.length > 0)).toEqual([]);
    expect(answers.map((a) => [a.phase, a.held])).toEqual(raced.map(() => ['Held', true]));
    // How: the Workload changed under the controller's Ready write, which failed.
    expect(raced.map((r) => r.firstWrite)).toEqual(raced.map(() => 'Workload inactive'));
    expect(found.filter((o) => o.readyWrite !== 'refused')).toEqual([]);
    await heldDown(raced, true);
  });

  it(`a Hold that made the Workload inactive before marking the TrainJob, between the read and the write (${RACES} races): the Ready write fails, nothing is admitted, no pod`, async () => {
    const { control, raced } = await startRaces('workload-first');
    await Promise.all(
      raced.map(async (race) => {
        await Promise.race([race.raced, until(`the Ready write of ${race.workload}`, 60_000, async () => undefined)]);
        expect(await h.client.hold(race.ref)).toMatchObject({ phase: 'Held', held: true });
      }),
    );
    await controlRuns(control);
    await heldDown(raced, false);
    const found = outcomes(raced);
    show(`${RACES} Holds writing the Workload first, between read and write`, found);
    expect(found.filter((o) => !o.held || o.readyWrite !== 'refused' || o.admitted > 0 || o.unsuspended > 0 || o.pods.length > 0)).toEqual([]);
    await heldDown(raced, true);
  });
});
