// The worker's watch of the MultiKueue worker clusters' pods (src/worker/worker-pod-watch.ts) on
// the shared WatchedLists (src/kube/watched-lists.ts), against fake clients: per worker cluster a
// paged list of the namespace's job-id-labelled pods through CoreV1Api, then a watch at /api/v1,
// and every pod listed or changed goes to the memory, which then answers the Watch after the pods
// are gone. A worker cluster that does not answer throws nothing, keeps the other feeds going and
// is tried again after RETRY_MS; stopped, every feed's watch ends.
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { KubeClients } from '../../../src/kube/clients.js';
import { LIST_PAGE_SIZE } from '../../../src/kube/objects.js';
import { RETRY_MS, WatchedLists } from '../../../src/kube/watched-lists.js';
import { Labels } from '../../../src/model/constants.js';
import type { Pod } from '../../../src/model/kube.js';
import { ExitCodeMemory } from '../../../src/worker/exit-code-memory.js';
import { createWorkerPodWatch } from '../../../src/worker/worker-pod-watch.js';
import { JOB_ID, NS, pod, T0, T1 } from '../core/operation-fixtures.js';
import { recordingWatcher } from '../kube/support/recording-watcher.js';

const JOB = { jobId: JOB_ID, submission: '12' };
type ListParams = { namespace: string; labelSelector: string; limit?: number; _continue?: string };

const withUid = (p: Pod, uid: string, resourceVersion = '1'): Pod => ({ ...p, metadata: { ...p.metadata, uid, resourceVersion } });

/** One worker cluster: its pod lists answer from `list` (the typed client's shape: `_continue`, Dates), its watches are recorded. */
function cluster(list: (params: ListParams) => Promise<unknown>) {
  const lists: ListParams[] = [];
  const { watcher, watches } = recordingWatcher();
  const kube = {
    core: {
      listNamespacedPod(params: ListParams) {
        lists.push(params);
        return list(params);
      },
    },
    custom: {
      listNamespacedCustomObject: () => Promise.reject(new Error('pods are not custom objects')),
    },
  } as unknown as KubeClients;
  return { kube, watcher, lists, watches };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function harness(clusters: Record<string, ReturnType<typeof cluster>>) {
  let now = 1_000_000;
  const memory = new ExitCodeMemory({ keepMs: 3_600_000, now: () => now });
  const byKube = new Map(Object.values(clusters).map((c) => [c.kube, c]));
  const watch = createWorkerPodWatch({
    namespace: NS,
    workerClusters: new Map(Object.entries(clusters).map(([name, c]) => [name, c.kube])),
    memory,
    requestTimeoutMs: 1000,
    keepInStepMs: 5,
    feedsFor: (kube) => new WatchedLists(kube, byKube.get(kube)!.watcher, { find: () => Promise.reject(new Error('no checks')) }, 1000, () => now),
  });
  const stop = new AbortController();
  const running = watch.run(stop.signal);
  return { memory, stop, running, inStep: () => Object.fromEntries(watch.inStep()), advance: (ms: number) => void (now += ms) };
}

/** Waits (bounded) for `ready` to hold, letting the feeds' timers and promises run. */
async function until(ready: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > end) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("the worker's watch of the worker clusters' pods", () => {
  it('lists the job-id-labelled pods in pages through CoreV1Api, watches them at /api/v1, and remembers a failure listed or watched after the pod is gone', async () => {
    // Two pages, as the typed client answers: `_continue`, and finishedAt as a Date.
    const listed = withUid(pod('w1-listed', { exitCode: 3, finishedAt: T1 }), 'u1');
    (listed.status!.containerStatuses![0]!.state!.terminated as { finishedAt: unknown }).finishedAt = new Date(T1);
    const running = withUid(pod('w1-running', {}), 'u2');
    const w1 = cluster(async (p) =>
      p._continue === undefined
        ? { metadata: { resourceVersion: '10', _continue: 'page-2' }, items: [running] }
        : { metadata: { resourceVersion: '10' }, items: [listed] },
    );
    const h = harness({ 'worker-1': w1 });
    await until(() => w1.watches.length === 1);
    expect(w1.lists).toEqual([
      { namespace: NS, labelSelector: Labels.jobId, limit: LIST_PAGE_SIZE },
      { namespace: NS, labelSelector: Labels.jobId, limit: LIST_PAGE_SIZE, _continue: 'page-2' },
    ]);
    expect(w1.watches[0]).toMatchObject({ path: `/api/v1/namespaces/${NS}/pods`, query: { labelSelector: Labels.jobId, resourceVersion: '10' } });
    // The listed Date is read as the watch would have sent it (src/kube/as-sent.ts).
    expect(h.memory.failureOf('worker-1', JOB)).toEqual({ pod: 'w1-listed', exitCode: 3, finishedAt: T1 });

    // The running pod's node container fails earlier than the listed one (T0 < T1); then MultiKueue deletes both.
    w1.watches[0]!.event('MODIFIED', withUid(pod('w1-running', { exitCode: 125, finishedAt: T0 }), 'u2', '11'));
    const deleting = withUid(pod('w1-running', { exitCode: 137, finishedAt: T1 }), 'u2', '12');
    deleting.metadata!.deletionTimestamp = T1;
    w1.watches[0]!.event('MODIFIED', deleting);
    w1.watches[0]!.event('DELETED', deleting);
    w1.watches[0]!.event('DELETED', withUid(listed, 'u1', '13'));
    expect(h.memory.failureOf('worker-1', JOB)).toMatchObject({ pod: 'w1-running', exitCode: 125 });

    h.stop.abort();
    await h.running;
    expect(w1.watches[0]!.stop.signal.aborted).toBe(true);
    // Stopped: nothing heard any more.
    w1.watches[0]!.event('MODIFIED', withUid(pod('w1-late', { exitCode: 9, finishedAt: '2025-01-01T00:00:00Z' }), 'u3'));
    expect(h.memory.failureOf('worker-1', JOB)).toMatchObject({ exitCode: 125 });
  });

  it('a worker cluster that does not answer throws nothing, leaves the others watched, and is listed again after RETRY_MS', async () => {
    let answer = false;
    const silent = cluster(async () => {
      if (!answer) throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:6443'), { code: 'ECONNREFUSED' });
      return { metadata: { resourceVersion: '5' }, items: [withUid(pod('w2-p', { exitCode: 7, finishedAt: T0 }), 'v1')] };
    });
    const w1 = cluster(async () => ({ metadata: { resourceVersion: '1' }, items: [] }));
    const h = harness({ 'worker-1': w1, 'worker-2': silent });
    await until(() => w1.watches.length === 1 && silent.lists.length >= 1);
    // What dispatch_worker_cluster_pod_feed_in_step reports: worker-1 in step, worker-2 down.
    await until(() => h.inStep()['worker-1'] === true);
    expect(h.inStep()).toEqual({ 'worker-1': true, 'worker-2': false });
    w1.watches[0]!.event('ADDED', withUid(pod('w1-p', { exitCode: 2, finishedAt: T0 }), 'u1'));
    expect(h.memory.failureOf('worker-1', JOB)?.exitCode).toBe(2);
    expect(h.memory.failureOf('worker-2', JOB)).toBeUndefined();
    expect(silent.watches).toHaveLength(0);

    // Not before RETRY_MS (the keep-in-step ticks every 5 ms meanwhile)...
    const tries = silent.lists.length;
    // Also lets the failed list reach the feed (it then waits RETRY_MS from now) before the clock moves.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(silent.lists.length).toBe(tries);
    // ...and after it, listed again: now it answers, and what it lists is remembered.
    answer = true;
    h.advance(RETRY_MS + 1);
    await until(() => silent.watches.length === 1);
    expect(h.memory.failureOf('worker-2', JOB)?.exitCode).toBe(7);
    await until(() => h.inStep()['worker-2'] === true);
    h.stop.abort();
    await h.running;
    // Stopped: no feed is in step.
    expect(h.inStep()).toEqual({ 'worker-1': false, 'worker-2': false });
  });

  it('a refusal (RBAC without list or watch on pods) is the same: no throw, tried again', async () => {
    const refusing = cluster(async () => Promise.reject(new ApiException(403, 'Forbidden', { reason: 'Forbidden', message: 'pods is forbidden' }, {})));
    const h = harness({ 'worker-1': refusing });
    await until(() => refusing.lists.length === 1);
    // The refusal reaches the feed (it then waits RETRY_MS from now) before the clock moves.
    await new Promise((resolve) => setTimeout(resolve, 20));
    h.advance(RETRY_MS + 1);
    await until(() => refusing.lists.length === 2);
    expect(refusing.watches).toHaveLength(0);
    expect(h.memory.size).toBe(0);
    expect(h.inStep()).toEqual({ 'worker-1': false });
    h.stop.abort();
    await h.running;
    await settle();
  });
});
