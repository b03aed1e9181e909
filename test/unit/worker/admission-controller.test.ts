// The admission check controller's shell (docs/contract.md §9): each pass reads dispatch's
// AdmissionCheck, the namespace's Workloads and dispatch's TrainJobs, and makes the core's writes
// through the status subresource; stale writes are counted and left to the next pass, unanswered
// calls retried next pass, nothing ever thrown. The API here is an in-memory stand-in that applies
// JSON patches as the API server does (a failed `test` is its 422) and bumps resourceVersion
// (support/admission-cluster.ts).
import { describe, expect, it } from 'vitest';
import { WatchedLists } from '../../../src/kube/watched-lists.js';
import { LabelValues, Labels } from '../../../src/model/constants.js';
import type { KubeObject } from '../../../src/model/kube.js';
import { createAdmissionController, MIN_GAP_MS, type AdmissionControllerOptions } from '../../../src/worker/admission-controller.js';
import { CHECK, KUEUE_CONFIG, NS } from '../core/operation-fixtures.js';
import { activeCondition, admissionCheck, apiError, cluster, checkState, FakeApi, NOW } from './support/admission-cluster.js';

/** `logs` gets each line's message; `levelled`, `<level>: <message>`. */
function controller(api: FakeApi, logs: string[] = [], options: Partial<AdmissionControllerOptions> = {}, levelled: string[] = []) {
  return createAdmissionController({
    kube: api.kube(),
    config: KUEUE_CONFIG,
    requestTimeoutMs: 1000,
    log: (message, _fields, level = 'info') => {
      logs.push(message);
      levelled.push(`${level}: ${message}`);
    },
    now: () => NOW,
    ...options,
  });
}

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
    const levelled: string[] = [];
    const c = controller(api, logs, {}, levelled);
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
    // Each problem (the unanswered lists, then the 503) is a warning: the controller rides it out; its end is news.
    expect(levelled.filter((l) => l.includes('complete'))).toEqual([
      'warn: admission check controller: pass incomplete',
      'warn: admission check controller: pass incomplete',
      'info: admission check controller: pass complete again',
    ]);
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
    const levelled: string[] = [];
    let calls = 0;
    const c = controller(api, logs, {
      intervalMs: 1,
      now: () => {
        if (++calls === 1) throw new Error('clock broke');
        return NOW;
      },
    }, levelled);
    const stop = new AbortController();
    const running = c.run(stop.signal);
    while (c.counters.readyWrites < 2) await new Promise((resolve) => setTimeout(resolve, 2));
    stop.abort();
    await running;
    expect(levelled).toContain('error: admission check controller: pass failed');
  });
});
