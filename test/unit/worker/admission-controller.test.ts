// The admission check controller's shell (docs/contract.md §9): each pass reads dispatch's
// AdmissionCheck, the namespace's Workloads and dispatch's TrainJobs, and makes the core's writes
// through the status subresource; stale writes are counted and left to the next pass, unanswered
// calls retried next pass, nothing ever thrown. The API here is an in-memory stand-in that applies
// JSON patches as the API server does (a failed `test` is its 422) and bumps resourceVersion.
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { KubeClients } from '../../../src/kube/clients.js';
import { WatchedLists } from '../../../src/kube/watched-lists.js';
import { applyJsonPatch, JsonPatchError } from '../../support/json-patch.js';
import { LabelValues, Labels } from '../../../src/model/constants.js';
import type { KubeObject, Workload } from '../../../src/model/kube.js';
import type { JsonPatchOp } from '../../../src/model/kube.js';
import { createAdmissionController, MIN_GAP_MS, type AdmissionControllerOptions } from '../../../src/worker/admission-controller.js';
import { CHECK, condition, KUEUE_CONFIG, NS, trainJob, workload } from '../core/lifecycle-fixtures.js';

const CONTROLLER = 'dispatch.phpboyscout.uk/admission-check';
const NOW = new Date('2026-01-02T03:04:05.678Z');
const RESERVED = condition('QuotaReserved', 'True', 'QuotaReserved', 'Quota reserved in ClusterQueue cq');
const PATCH_NOT_APPLIED = 'the server rejected our request due to an error in our request';

const apiError = (code: number, message: string, reason = '') => new ApiException(code, message, { reason, message }, {});

interface Params {
  plural: string;
  namespace?: string;
  name?: string;
  labelSelector?: string;
  body?: JsonPatchOp[];
}

type Method = 'getClusterCustomObject' | 'patchClusterCustomObjectStatus' | 'listNamespacedCustomObject' | 'patchNamespacedCustomObjectStatus';

/** An API server of objects by plural/namespace/name; `fault` may answer a call instead of it. */
class FakeApi {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: { method: Method; params: Params }[] = [];
  fault?: (method: Method, params: Params) => Error | undefined;
  /** Resolved before each Workload list answers (to make two controllers read before either writes). */
  beforeList?: () => Promise<void>;
  private rv = 1000;

  put(plural: string, object: KubeObject): void {
    const { namespace, name } = object.metadata ?? {};
    this.objects.set(`${plural}/${namespace ?? ''}/${name}`, { ...object, metadata: { ...object.metadata, resourceVersion: String(this.rv++) } });
  }

  get(plural: string, namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(`${plural}/${namespace}/${name}`);
  }

  private answer<T>(method: Method, params: Params, work: () => T): Promise<T> {
    this.calls.push({ method, params });
    const fault = this.fault?.(method, params);
    return fault ? Promise.reject(fault) : Promise.resolve().then(work);
  }

  private patch(params: Params): KubeObject {
    const current = this.get(params.plural, params.namespace ?? '', params.name ?? '');
    if (!current) throw apiError(404, `${params.name} not found`, 'NotFound');
    let next: KubeObject;
    try {
      next = applyJsonPatch(current, params.body ?? []);
    } catch (error) {
      if (error instanceof JsonPatchError) throw apiError(422, PATCH_NOT_APPLIED);
      throw error;
    }
    this.put(params.plural, next);
    return next;
  }

  readonly custom = {
    getClusterCustomObject: (p: Params) =>
      this.answer('getClusterCustomObject', p, () => {
        const found = this.get(p.plural, '', p.name ?? '');
        if (!found) throw apiError(404, `${p.name} not found`, 'NotFound');
        return found;
      }),
    patchClusterCustomObjectStatus: (p: Params) => this.answer('patchClusterCustomObjectStatus', p, () => this.patch(p)),
    patchNamespacedCustomObjectStatus: (p: Params) => this.answer('patchNamespacedCustomObjectStatus', p, () => this.patch(p)),
    listNamespacedCustomObject: async (p: Params) => {
      if (p.plural === 'workloads') await this.beforeList?.();
      return this.answer('listNamespacedCustomObject', p, () => ({
        items: [...this.objects.entries()]
          .filter(([key]) => key.startsWith(`${p.plural}/${p.namespace}/`))
          .map(([, o]) => o)
          .filter((o) => matches(o, p.labelSelector ?? '')),
      }));
    },
  };

  kube(): KubeClients {
    return { custom: this.custom } as unknown as KubeClients;
  }
}

/** `key` (exists) or `key=value`, the two forms the controller uses. */
function matches(object: KubeObject, selector: string): boolean {
  if (!selector) return true;
  const [key, value] = selector.split('=') as [string, string | undefined];
  const label = object.metadata?.labels?.[key];
  return value === undefined ? label !== undefined : label === value;
}

const admissionCheck = (controllerName = CONTROLLER): KubeObject => ({
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  kind: 'AdmissionCheck',
  metadata: { name: CHECK, uid: 'ac-uid', generation: 1 },
  spec: { controllerName },
});

/** dispatch's AdmissionCheck, and Workloads a..e: only `a` and `b` are to be marked Ready. */
function cluster(): FakeApi {
  const api = new FakeApi();
  api.put('admissionchecks', admissionCheck());
  const job = (name: string, uid: string, shape: Parameters<typeof trainJob>[0] = {}) =>
    api.put('trainjobs', { ...trainJob({ uid, ...shape }), metadata: { ...trainJob({ uid, ...shape }).metadata, name } });
  const wl = (name: string, uid: string, shape: Parameters<typeof workload>[0] = {}) =>
    api.put('workloads', { ...workload({ name, jobUid: uid, check: 'Pending', conditions: [RESERVED], ...shape }), metadata: { ...workload({ name, jobUid: uid }).metadata, uid: `wl-${name}` } });
  job('job-a', 'uid-a');
  job('job-b', 'uid-b');
  job('job-c', 'uid-c', { held: 'true' });
  job('job-d', 'uid-d');
  wl('wl-a', 'uid-a');
  wl('wl-b', 'uid-b');
  wl('wl-c', 'uid-c'); // held
  wl('wl-d', 'uid-d', { conditions: [] }); // no quota reserved
  wl('wl-e', 'uid-e'); // no TrainJob of dispatch's
  return api;
}

function controller(api: FakeApi, logs: string[] = [], options: Partial<AdmissionControllerOptions> = {}) {
  return createAdmissionController({
    kube: api.kube(),
    config: KUEUE_CONFIG,
    requestTimeoutMs: 1000,
    log: (message) => logs.push(message),
    now: () => NOW,
    ...options,
  });
}

const checkState = (api: FakeApi, name: string) =>
  ((api.get('workloads', NS, name) as Workload).status?.admissionChecks ?? []).find((c) => c.name === CHECK)?.state;
const activeCondition = (api: FakeApi) =>
  ((api.get('admissionchecks', '', CHECK) as { status?: { conditions?: { type: string }[] } }).status?.conditions ?? []).find((c) => c.type === 'Active');

describe('the admission check controller, one pass', () => {
  it("sets dispatch's AdmissionCheck Active and the check Ready on reserved Workloads of unheld dispatch TrainJobs, and nothing else", async () => {
    const api = cluster();
    const c = controller(api);
    const result = await c.pass();
    expect(result.clean).toBe(true);
    expect(activeCondition(api)).toMatchObject({ status: 'True', reason: 'Ready', lastTransitionTime: '2026-01-02T03:04:05Z', observedGeneration: 1 });
    expect(['wl-a', 'wl-b', 'wl-c', 'wl-d', 'wl-e'].map((n) => checkState(api, n))).toEqual(['Ready', 'Ready', 'Pending', 'Pending', 'Pending']);
    expect(c.counters).toMatchObject({ passes: 1, activeWrites: 1, readyWrites: 2, stale: 0, unanswered: 0, refused: 0 });
    // Status writes only, to the configured namespace and Workload version; the lists narrowed by label.
    const writes = api.calls.filter((call) => call.method.startsWith('patch'));
    expect(writes.map((w) => w.method)).toEqual(['patchClusterCustomObjectStatus', 'patchNamespacedCustomObjectStatus', 'patchNamespacedCustomObjectStatus']);
    const lists = api.calls.filter((call) => call.method === 'listNamespacedCustomObject').map((l) => [l.params.plural, l.params.namespace, l.params.labelSelector]);
    expect(lists).toEqual(
      expect.arrayContaining([
        ['workloads', NS, Labels.kueueJobUid],
        ['trainjobs', NS, `${Labels.managedBy}=${LabelValues.managedBy}`],
      ]),
    );
    expect(lists).toHaveLength(2);
  });

  it("reads the Workloads and TrainJobs from the worker's watch-fed copy while it is in step, and lists them while it is not", async () => {
    const api = cluster();
    let inStep = true;
    const asked: [string, string, string][] = [];
    const lists = {
      snapshot(kind: { plural: string }, namespace: string, label: string) {
        asked.push([kind.plural, namespace, label]);
        if (!inStep) return undefined;
        return [...api.objects.entries()]
          .filter(([key]) => key.startsWith(`${kind.plural}/${namespace}/`))
          .map(([, o]) => o)
          .filter((o) => o.metadata?.labels?.[label] !== undefined);
      },
      changed: async () => {},
    };
    const c = controller(api, [], { lists });
    expect(await c.pass()).toMatchObject({ clean: true });
    expect(['wl-a', 'wl-b', 'wl-c', 'wl-d', 'wl-e'].map((n) => checkState(api, n))).toEqual(['Ready', 'Ready', 'Pending', 'Pending', 'Pending']);
    expect(api.calls.filter((call) => call.method === 'listNamespacedCustomObject')).toEqual([]);
    expect(asked).toEqual([
      ['workloads', NS, Labels.kueueJobUid],
      ['trainjobs', NS, Labels.jobId],
    ]);
    inStep = false;
    await c.pass();
    expect(api.calls.filter((call) => call.method === 'listNamespacedCustomObject')).toHaveLength(2);
  });

  it('a second pass has nothing to write', async () => {
    const api = cluster();
    const c = controller(api);
    await c.pass();
    const before = api.calls.length;
    expect(await c.pass()).toEqual({ clean: true, applied: [] });
    expect(api.calls.slice(before).map((call) => call.method).sort()).toEqual(['getClusterCustomObject', 'listNamespacedCustomObject', 'listNamespacedCustomObject']);
    expect(c.counters).toMatchObject({ passes: 2, activeWrites: 1, readyWrites: 2 });
  });

  it('two controllers that read the same objects write each once: the second write of each is stale, not an error', async () => {
    const api = cluster();
    // Both list the Workloads before either writes one.
    let arrived = 0;
    let release!: () => void;
    const bothListed = new Promise<void>((resolve) => (release = resolve));
    api.beforeList = () => (++arrived === 2 && release(), bothListed);
    const [one, two] = [controller(api), controller(api)];
    const results = await Promise.all([one.pass(), two.pass()]);
    expect(results.every((r) => r.clean)).toBe(true);
    expect(one.counters.readyWrites + two.counters.readyWrites).toBe(2);
    expect(one.counters.activeWrites + two.counters.activeWrites).toBe(1);
    expect(one.counters.stale + two.counters.stale).toBe(3);
    expect(one.counters.refused + two.counters.refused).toBe(0);
    expect(['wl-a', 'wl-b'].map((n) => checkState(api, n))).toEqual(['Ready', 'Ready']);
  });

  it('a 409 or 404 on a write is stale too', async () => {
    for (const code of [409, 404]) {
      const api = cluster();
      api.fault = (method, p) => (method === 'patchNamespacedCustomObjectStatus' && p.name === 'wl-a' ? apiError(code, 'changed') : undefined);
      const c = controller(api);
      expect((await c.pass()).clean).toBe(true);
      expect(c.counters).toMatchObject({ readyWrites: 1, stale: 1, refused: 0 });
    }
  });

  it('an unanswered call ends the pass without throwing; the next pass, answered, makes the writes', async () => {
    const api = cluster();
    const logs: string[] = [];
    const c = controller(api, logs);
    api.fault = (method) => (method === 'listNamespacedCustomObject' ? Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) : undefined);
    expect((await c.pass()).clean).toBe(false);
    expect((await c.pass()).clean).toBe(false);
    // Both lists of each pass went unanswered.
    expect(c.counters).toMatchObject({ unanswered: 4, readyWrites: 0, activeWrites: 1 });
    // A lasting problem is logged once, and its end once.
    expect(logs.filter((l) => l.includes('incomplete'))).toHaveLength(1);
    api.fault = (method) => (method === 'patchNamespacedCustomObjectStatus' ? apiError(503, 'unavailable') : undefined);
    expect((await c.pass()).clean).toBe(false);
    expect(c.counters.unanswered).toBe(5);
    expect(checkState(api, 'wl-a')).toBe('Pending');
    api.fault = undefined;
    expect((await c.pass()).clean).toBe(true);
    expect(c.counters.readyWrites).toBe(2);
    expect(logs.filter((l) => l.includes('complete again'))).toHaveLength(1);
  });

  it('a definite refusal of a write (403) is counted and logged, and the other writes are made', async () => {
    const api = cluster();
    const logs: string[] = [];
    api.fault = (method, p) => (method === 'patchNamespacedCustomObjectStatus' && p.name === 'wl-a' ? apiError(403, 'forbidden', 'Forbidden') : undefined);
    const c = controller(api, logs);
    expect((await c.pass()).clean).toBe(false);
    expect(c.counters).toMatchObject({ readyWrites: 1, refused: 1, stale: 0 });
    expect(logs).toContain('admission check controller: pass incomplete');
  });

  it("an AdmissionCheck of the name that is another controller's, or none at all: nothing is written", async () => {
    const foreign = cluster();
    foreign.put('admissionchecks', admissionCheck('kueue.x-k8s.io/provisioning-request'));
    const c = controller(foreign);
    expect((await c.pass()).clean).toBe(false);
    expect(c.counters).toMatchObject({ activeWrites: 0, readyWrites: 0 });
    expect(checkState(foreign, 'wl-a')).toBe('Pending');

    const none = cluster();
    none.objects.delete(`admissionchecks//${CHECK}`);
    const d = controller(none);
    expect((await d.pass()).clean).toBe(false);
    expect(d.counters).toMatchObject({ activeWrites: 0, readyWrites: 0, refused: 1 });
    expect(none.calls.map((call) => call.method)).toEqual(['getClusterCustomObject']);
  });
});

describe('the admission check controller, running', () => {
  it('passes every interval until the signal aborts, and then resolves', async () => {
    const api = cluster();
    const logs: string[] = [];
    const c = controller(api, logs, { intervalMs: 5 });
    const stop = new AbortController();
    const running = c.run(stop.signal);
    while (c.counters.passes < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    stop.abort();
    await running;
    const passes = c.counters.passes;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(c.counters.passes).toBe(passes);
    expect(c.counters).toMatchObject({ activeWrites: 1, readyWrites: 2 });
    expect(logs[0]).toBe('admission check controller started');
    expect(logs.at(-1)).toBe('admission check controller stopped');
  });

  it(`with the watch in step, a Workload's change brings the next pass forward, at most every ${MIN_GAP_MS} ms`, async () => {
    const api = cluster();
    let changes = 0;
    const lists = {
      snapshot: () => undefined,
      // Every wait for a change ends at once: the Workloads keep changing.
      changed: async () => void changes++,
    };
    const stop = new AbortController();
    const quick = controller(api, [], { intervalMs: 60_000, lists });
    const running = quick.run(stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 3.5 * MIN_GAP_MS));
    stop.abort();
    await running;
    expect(quick.counters.passes).toBeGreaterThanOrEqual(3);
    expect(quick.counters.passes).toBeLessThanOrEqual(5);
    expect(changes).toBe(quick.counters.passes);
  });

  it('a Workload change seen by a real WatchedLists in the gap right after a pass still brings the next pass forward', async () => {
    const api = cluster();
    const emit: ((type: string, object: KubeObject) => void)[] = [];
    const watcher = {
      async watch(_path: string, _query: unknown, event: (type: string, object: KubeObject) => void) {
        emit.push(event);
        return new AbortController();
      },
    };
    const lists = new WatchedLists(api.kube(), watcher, { find: async () => ({ answered: 'ok', value: [] }) }, 1000);
    const c = controller(api, [], { intervalMs: 60_000, lists });
    const stop = new AbortController();
    const running = c.run(stop.signal);
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    // The first pass lists and starts the feeds; the feeds' watches begin.
    await until(() => emit.length === 2);
    await until(() => c.counters.passes === 1);
    for (const event of emit) event('MODIFIED', { metadata: { uid: 'wl-x', name: 'wl-x', resourceVersion: '9', labels: { [Labels.kueueJobUid]: 'x' } } });
    await until(() => c.counters.passes === 2);
    expect(c.counters.passes).toBe(2);
    stop.abort();
    await running;
    lists.close();
  });

  it('a pass that throws anyway is logged and the loop goes on', async () => {
    const api = cluster();
    const logs: string[] = [];
    let calls = 0;
    const c = controller(api, logs, {
      intervalMs: 1,
      now: () => {
        if (++calls === 1) throw new Error('clock broke');
        return NOW;
      },
    });
    const stop = new AbortController();
    const running = c.run(stop.signal);
    while (c.counters.readyWrites < 2) await new Promise((resolve) => setTimeout(resolve, 2));
    stop.abort();
    await running;
    expect(logs).toContain('admission check controller: pass failed');
  });
});
