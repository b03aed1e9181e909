// A stand-in for Kueue in integration tests (docs/start.md step 9). The cluster has Kueue's CRDs but no
// Kueue controller, so this watches the TrainJobs of one namespace and, for each, does what Kueue
// would: optionally what its admission webhook adds to the TrainJob, then a Workload owned by the
// TrainJob, labelled with its UID, with the TrainJob's admission-gated-by annotation propagated and
// the configured admission check listed in status (a subresource, so written through /status).
// Each TrainJob's treatment can be made to misbehave, so that tests see Start refuse it.
import { setTimeout as sleep } from 'node:timers/promises';
import { AdmissionregistrationV1Api, CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import { WEBHOOK_SOURCES } from '../../../dev/harness/webhooks.js';
import type { Config } from '../../../src/model/config.js';
import { Annotations, Dispatch, Kueue, Labels, Trainer } from '../../../src/model/constants.js';
import type { TrainJob, Workload } from '../../../src/model/kube.js';

/** What the fake does with one TrainJob. Default: everything right, at once. */
export interface KueueBehaviour {
  /** Wait this long after seeing the TrainJob before creating its Workload (a slow Kueue). */
  delayMs?: number;
  /** Leave the TrainJob's admission-gated-by annotation off the Workload. */
  omitGate?: boolean;
  /** Leave the configured admission check out of the Workload's status.admissionChecks. */
  omitAdmissionCheck?: boolean;
  /** Never create a Workload. */
  never?: boolean;
  /** Create the Workload only once this settles (after delayMs, if any): a test's event decides when. */
  when?: Promise<unknown>;
  /**
   * First patch the TrainJob as Kueue's mutating webhook would: spec.suspend true, a
   * runtimePatches entry of Kueue's manager, and a label of its own.
   */
  webhook?: boolean;
}

/** A label Kueue's webhook stand-in adds, so tests can see the TrainJob went through it. */
export const FAKE_WEBHOOK_LABEL = `${Kueue.group}/fake-webhook`;
/** The node selector Kueue's runtime patch stand-in adds (as a ResourceFlavor's nodeLabels would). */
export const FAKE_FLAVOR_LABEL = `${Kueue.group}/fake-flavor`;

export interface FakeKueueEvent {
  trainJob: string;
  uid: string;
  what: 'seen' | 'webhook' | 'workload' | 'status' | 'skipped';
  /** Date.now() when it happened. */
  at: number;
  /** The Workload's name, for 'workload' and 'status'. */
  workload?: string;
}

const TRAINJOB_PATH = (namespace: string) =>
  `/apis/${Trainer.group}/${Trainer.version}/namespaces/${namespace}/${Trainer.trainJobPlural}`;

export class FakeKueue {
  /** What the fake did, in order. */
  readonly events: FakeKueueEvent[] = [];
  /** Anything that went wrong in the fake itself (a test should expect none). */
  readonly errors: Error[] = [];
  private readonly behaviours = new Map<string, KueueBehaviour>();
  private readonly seen = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private watch?: AbortController;
  private readonly api: CustomObjectsApi;
  private readonly workloadAt: { group: string; version: string; namespace: string; plural: string };

  private constructor(
    private readonly kc: KubeConfig,
    private readonly config: Config,
    private readonly defaults: KueueBehaviour,
  ) {
    this.api = kc.makeApiClient(CustomObjectsApi);
    this.workloadAt = {
      group: Kueue.group,
      version: config.kueue.workloadVersion,
      namespace: config.namespace,
      plural: Kueue.workloadPlural,
    };
  }

  /**
   * Starts watching config.namespace's TrainJobs. The Workload API version and the admission check
   * are the ones `config` reads (kueue.workloadVersion, kueue.admissionCheck).
   */
  static async start(options: {
    kubeConfig: KubeConfig;
    config: Config;
    defaults?: KueueBehaviour;
  }): Promise<FakeKueue> {
    await refuseRealKueue(options.kubeConfig);
    const fake = new FakeKueue(options.kubeConfig, options.config, options.defaults ?? {});
    await fake.startWatch();
    return fake;
  }

  /** How the TrainJob of this name is to be treated (else the defaults). Set it before the Start. */
  behave(trainJobName: string, behaviour: KueueBehaviour): void {
    this.behaviours.set(trainJobName, behaviour);
  }

  /** The events about one TrainJob. */
  eventsOf(trainJobName: string): FakeKueueEvent[] {
    return this.events.filter((e) => e.trainJob === trainJobName);
  }

  /** Stops watching, cancels pending delays, and waits for what is in flight to finish. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.watch?.abort();
    await Promise.allSettled([...this.pending]);
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  private async startWatch(): Promise<void> {
    // Without a resourceVersion the server first sends ADDED for every existing TrainJob, so a
    // restarted watch misses nothing; `seen` keeps each TrainJob handled once.
    this.watch = await new Watch(this.kc).watch(
      TRAINJOB_PATH(this.config.namespace),
      {},
      (phase, object: TrainJob) => {
        if ((phase === 'ADDED' || phase === 'MODIFIED') && !object.metadata?.deletionTimestamp)
          this.onTrainJob(object);
      },
      (error: unknown) => {
        if (this.stopped) return;
        if (error && !(error instanceof Error && error.name === 'AbortError'))
          this.errors.push(asError(error, 'watch ended'));
        // A watch ends on the server's timeout too; keep watching until stopped.
        this.track(sleep(200, undefined, { signal: this.stopping.signal }).then(() => this.startWatch()));
      },
    );
  }

  private onTrainJob(trainJob: TrainJob): void {
    const uid = trainJob.metadata.uid ?? '';
    if (this.stopped || this.seen.has(uid)) return;
    this.seen.add(uid);
    this.record(trainJob, 'seen');
    this.track(this.admit(trainJob));
  }

  private track(work: Promise<unknown>): void {
    const done: Promise<void> = work.then(
      () => undefined,
      (error: unknown) => {
        if (!this.stopped) this.errors.push(asError(error, 'fake Kueue'));
      },
    );
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
  }

  private record(trainJob: TrainJob, what: FakeKueueEvent['what'], workload?: string): void {
    this.events.push({
      trainJob: trainJob.metadata.name ?? '',
      uid: trainJob.metadata.uid ?? '',
      what,
      at: Date.now(),
      ...(workload ? { workload } : {}),
    });
  }

  private async admit(trainJob: TrainJob): Promise<void> {
    const name = trainJob.metadata.name ?? '';
    const behaviour = this.behaviours.get(name) ?? this.defaults;
    if (behaviour.webhook) await this.playWebhook(trainJob);
    if (behaviour.never) return this.record(trainJob, 'skipped');
    if (behaviour.delayMs) await sleep(behaviour.delayMs, undefined, { signal: this.stopping.signal });
    if (behaviour.when) await Promise.race([behaviour.when, aborted(this.stopping.signal)]);
    if (this.stopped) return;
    const workload = workloadFor(trainJob, this.config, behaviour);
    const created = (await this.api.createNamespacedCustomObject({
      ...this.workloadAt,
      body: workload,
      fieldManager: 'kueue',
    })) as Workload;
    const workloadName = created.metadata?.name ?? '';
    this.record(trainJob, 'workload', workloadName);
    if (behaviour.omitAdmissionCheck) return;
    await this.api.patchNamespacedCustomObjectStatus({
      ...this.workloadAt,
      name: workloadName,
      fieldManager: 'kueue',
      body: [
        {
          op: 'add',
          path: '/status',
          value: {
            admissionChecks: [
              {
                name: this.config.kueue.admissionCheck,
                state: 'Pending',
                message: '',
                lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
              },
            ],
          },
        },
      ],
    });
    this.record(trainJob, 'status', workloadName);
  }

  /** What Kueue's mutating webhook adds to a TrainJob of a queue (docs/contract.md §4a). */
  private async playWebhook(trainJob: TrainJob): Promise<void> {
    await this.api.patchNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      namespace: this.config.namespace,
      plural: Trainer.trainJobPlural,
      name: trainJob.metadata.name ?? '',
      fieldManager: 'kueue',
      body: [
        { op: 'test', path: '/metadata/uid', value: trainJob.metadata.uid },
        { op: 'add', path: '/spec/suspend', value: true },
        { op: 'add', path: `/metadata/labels/${jsonPointer(FAKE_WEBHOOK_LABEL)}`, value: 'true' },
        {
          op: 'add',
          path: '/spec/runtimePatches/-',
          value: {
            manager: Kueue.managerName,
            trainingRuntimeSpec: {
              template: {
                spec: {
                  replicatedJobs: [
                    {
                      name: trainerJobOf(trainJob),
                      template: {
                        spec: { template: { spec: { nodeSelector: { [FAKE_FLAVOR_LABEL]: 'default' } } } },
                      },
                    },
                  ],
                },
              },
            },
          },
        },
      ],
    });
    this.record(trainJob, 'webhook');
  }
}

/** The name the harness registers the real Kueue's mutating webhook under (dev/harness/webhooks.ts). */
const REAL_KUEUE_WEBHOOK = `${WEBHOOK_SOURCES.kueue.controller}-mutating`;

/**
 * Throws when the cluster runs the real Kueue (its webhook is registered): it makes a Workload for
 * every TrainJob of a queue, so a stand-in told to make none, a late one or a wrong one would be
 * contradicted, and a test would pass or fail on which of the two answered first.
 */
async function refuseRealKueue(kc: KubeConfig): Promise<void> {
  const found = await kc
    .makeApiClient(AdmissionregistrationV1Api)
    .readMutatingWebhookConfiguration({ name: REAL_KUEUE_WEBHOOK })
    .then(
      () => true,
      (error: { code?: number }) => {
        if (error.code === 404) return false;
        throw error;
      },
    );
  if (found)
    throw new Error(
      `FakeKueue: the real Kueue runs on this cluster (MutatingWebhookConfiguration ${REAL_KUEUE_WEBHOOK}); give the stand-in a cluster without it (support/kueue-free-cluster.ts)`,
    );
}

/** The Workload Kueue's jobframework makes for a TrainJob: one pod set per node, owned by the TrainJob. */
export function workloadFor(trainJob: TrainJob, config: Config, behaviour: KueueBehaviour = {}): Workload {
  const { name = '', uid = '' } = trainJob.metadata;
  const gate = trainJob.metadata.annotations?.[Annotations.kueueAdmissionGatedBy];
  const queue = trainJob.metadata.labels?.[Labels.kueueQueueName];
  return {
    apiVersion: `${Kueue.group}/${config.kueue.workloadVersion}`,
    kind: 'Workload',
    metadata: {
      // Kueue's own naming: trainjob-<name>-<5 characters of a hash>.
      name: `trainjob-${name}-${uid.slice(0, 5)}`,
      namespace: config.namespace,
      labels: { [Labels.kueueJobUid]: uid },
      ...(gate !== undefined && !behaviour.omitGate
        ? { annotations: { [Annotations.kueueAdmissionGatedBy]: gate } }
        : {}),
      ownerReferences: [
        {
          apiVersion: Trainer.apiVersion,
          kind: Trainer.trainJobKind,
          name,
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      ...(queue ? { queueName: queue } : {}),
      podSets: [
        {
          name: trainerJobOf(trainJob),
          count: trainJob.spec.trainer?.numNodes ?? 1,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: Trainer.nodeContainer, image: trainJob.spec.trainer?.image ?? '' }],
            },
          },
        },
      ],
    },
  };
}

/** The runtime's trainer replicated job, as dispatch's runtime patch names it (Kueue's pod set). */
function trainerJobOf(trainJob: TrainJob): string {
  const ours = trainJob.spec.runtimePatches?.find((p) => p.manager === Dispatch.patchManager);
  const spec = ours?.trainingRuntimeSpec as
    { template?: { spec?: { replicatedJobs?: { name?: string }[] } } } | undefined;
  return spec?.template?.spec?.replicatedJobs?.[0]?.name ?? Trainer.nodeContainer;
}

/** A key as one JSON Pointer segment (RFC 6901). */
const jsonPointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Rejects once `signal` aborts (a stop does not wait for a `when` that never comes). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const abort = () => reject(new Error('fake Kueue stopped'));
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}

function asError(error: unknown, what: string): Error {
  return error instanceof Error ? error : new Error(`${what}: ${JSON.stringify(error)}`);
}
