// The Watch waker (src/worker/watch-waker.ts): which Watch each change wakes, that one change wakes
// a Watch at most once (de-duplicated by its view, coalesced while its wake is queued, sent once
// more when it changed while its wake was in flight), that no more than maxInFlight signals are
// sent at once, that a failed wake is sent again (until watchRecheck has passed), and that a
// worker's first list wakes only the Watches of TrainJobs that ended within timeouts.watchRecheck.
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../../src/model/config.js';
import { Labels, Trainer } from '../../../src/model/constants.js';
import type { KubeObject } from '../../../src/model/kube.js';
import type { FeedChange, FeedListener } from '../../../src/kube/watched-lists.js';
import { createWatchWaker, type WakeResult } from '../../../src/worker/watch-waker.js';

const NOW = Date.parse('2026-12-02T12:00:00Z');
const config = ConfigSchema.parse({ namespace: 'ml', mode: 'kueue', kueue: { queue: 'q', admissionCheck: 'dispatch' } });

/**
 * A TrainJob at `resourceVersion` whose view (what a Watch reads) is `view`: by default every new
 * version is a change a Watch reads (an annotation holds it); `jobsStatus` is what the controllers
 * rewrite without changing a phase.
 */
const trainJob = (name: string, resourceVersion: string, ended?: string, view = resourceVersion, jobsStatus = 0): KubeObject => ({
  metadata: {
    namespace: 'ml',
    name,
    uid: `uid-${name}`,
    resourceVersion,
    labels: { [Labels.jobId]: `job-${name}` },
    annotations: { 'test.dispatch/view': view },
  },
  status: {
    jobsStatus: [{ name: 'node', active: jobsStatus }],
    ...(ended ? { conditions: [{ type: 'Complete', status: 'True', reason: 'JobCompleted', lastTransitionTime: ended }] } : {}),
  },
});
const workload = (job: string, resourceVersion: string): KubeObject => ({
  metadata: {
    namespace: 'ml',
    name: `trainjob-${job}-abc`,
    uid: `wl-${job}`,
    resourceVersion,
    labels: { [Labels.kueueJobUid]: `uid-${job}` },
    ownerReferences: [{ apiVersion: `${Trainer.group}/${Trainer.version}`, kind: Trainer.trainJobKind, name: job, uid: `uid-${job}` }],
  },
});
const change = (object: KubeObject, seen: FeedChange['seen'] = 'watch', deleted = false, kind: string = Trainer.trainJobKind): FeedChange => ({
  kind,
  object,
  seen,
  deleted,
});

/** A waker whose signals wait until the test lets them through, with what it signalled and counted. */
function harness(maxInFlight = 32) {
  const signalled: string[] = [];
  const counts: WakeResult[] = [];
  const held: (() => void)[] = [];
  let inFlight = 0;
  let peak = 0;
  const waker = createWatchWaker({
    config,
    lists: { subscribe: () => () => {}, snapshot: () => undefined },
    maxInFlight,
    now: () => NOW,
    count: (r) => counts.push(r),
    signal: (id) =>
      new Promise((resolve) => {
        signalled.push(id);
        peak = Math.max(peak, ++inFlight);
        held.push(() => {
          inFlight -= 1;
          resolve(id.includes('unwatched') ? 'not-watched' : 'signalled');
        });
      }),
  });
  const release = async () => {
    while (held.length > 0) {
      for (const let_ of held.splice(0)) let_();
      await new Promise((r) => setTimeout(r, 0));
    }
    await waker.idle();
  };
  return { waker, signalled, counts, release, peak: () => peak };
}

describe('the Watch waker', () => {
  it("wakes the TrainJob's own Watch, and a Workload's owner's", async () => {
    const h = harness();
    h.waker.hear(change(trainJob('a', '1')));
    h.waker.hear(change(workload('b', '2'), 'watch', false, 'Workload'));
    await h.release();
    expect(h.signalled).toEqual(['watch/ml/a/uid-a', 'watch/ml/b/uid-b']);
    expect(h.counts).toEqual(['signalled', 'signalled']);
  });

  it('one change wakes a Watch once: the same view again, or a change while its wake is queued, sends nothing', async () => {
    const h = harness(1);
    h.waker.hear(change(trainJob('a', '1')));
    h.waker.hear(change(trainJob('a', '1')));
    // b's wake waits behind a's (one signal at a time): b's later change and its Workload's ride with it.
    h.waker.hear(change(trainJob('b', '1')));
    h.waker.hear(change(trainJob('b', '2')));
    h.waker.hear(change(workload('b', '3'), 'watch', false, 'Workload'));
    await h.release();
    expect(h.signalled).toEqual(['watch/ml/a/uid-a', 'watch/ml/b/uid-b']);
    expect(h.counts.slice().sort()).toEqual(['coalesced', 'coalesced', 'coalesced', 'signalled', 'signalled']);
    // A version already acted on sends nothing even after its wake has landed (a relist that finds it again).
    h.waker.hear(change(trainJob('b', '2'), 'relist'));
    await h.release();
    expect(h.signalled).toEqual(['watch/ml/a/uid-a', 'watch/ml/b/uid-b']);
    // Once the wake has landed, the next change wakes it again; a deletion always does.
    h.waker.hear(change(trainJob('a', '4')));
    await h.release();
    h.waker.hear(change(trainJob('a', '4'), 'watch', true));
    await h.release();
    expect(h.signalled).toEqual(['watch/ml/a/uid-a', 'watch/ml/b/uid-b', 'watch/ml/a/uid-a', 'watch/ml/a/uid-a']);
  });

  // The in-flight signal may be recorded, and the Watch may read, before the change happened: a
  // Stop's delete heard while the wake of its deletionTimestamp was in flight left a Watch waiting
  // its whole timer (chaos, Kueue stop-running).
  it('a change heard while its Watch\'s signal is in flight is sent once more when that signal lands, however many there were', async () => {
    const h = harness();
    h.waker.hear(change(trainJob('a', '1')));
    expect(h.signalled).toEqual(['watch/ml/a/uid-a']);
    h.waker.hear(change(trainJob('a', '2')));
    h.waker.hear(change(workload('a', '3'), 'watch', false, 'Workload'));
    h.waker.hear(change(trainJob('a', '3'), 'watch', true));
    expect(h.signalled).toEqual(['watch/ml/a/uid-a']);
    await h.release();
    expect(h.signalled).toEqual(['watch/ml/a/uid-a', 'watch/ml/a/uid-a']);
    expect(h.counts.slice().sort()).toEqual(['coalesced', 'coalesced', 'signalled', 'signalled']);
    // A Watch nobody runs is not sent again, whatever changed meanwhile.
    h.waker.hear(change(trainJob('unwatched', '1')));
    h.waker.hear(change(trainJob('unwatched', '2')));
    await h.release();
    expect(h.signalled.filter((id) => id.includes('unwatched'))).toHaveLength(1);
  });

  it('a change of what no Watch reads (status.jobsStatus, the resourceVersion) wakes nothing; one of the view does', async () => {
    const h = harness();
    h.waker.hear(change(trainJob('a', '1', undefined, 'v1', 0)));
    await h.release();
    h.waker.hear(change(trainJob('a', '2', undefined, 'v1', 1)));
    h.waker.hear(change(trainJob('a', '3', undefined, 'v1', 2)));
    await h.release();
    expect(h.signalled).toEqual(['watch/ml/a/uid-a']);
    expect(h.counts).toEqual(['signalled', 'coalesced', 'coalesced']);
    // Complete appearing is a change of the view.
    h.waker.hear(change(trainJob('a', '4', new Date(NOW).toISOString(), 'v1', 2)));
    await h.release();
    expect(h.signalled).toEqual(['watch/ml/a/uid-a', 'watch/ml/a/uid-a']);
    // A Workload's admission is too; its resourceVersion alone is not.
    h.waker.hear(change(workload('b', '5'), 'watch', false, 'Workload'));
    await h.release();
    h.waker.hear(change(workload('b', '6'), 'watch', false, 'Workload'));
    await h.release();
    h.waker.hear(change({ ...workload('b', '7'), status: { conditions: [{ type: 'Admitted', status: 'True' }] } }, 'watch', false, 'Workload'));
    await h.release();
    expect(h.signalled.filter((id) => id.includes('/b/'))).toEqual(['watch/ml/b/uid-b', 'watch/ml/b/uid-b']);
  });

  it('sends at most maxInFlight signals at once, and every queued wake goes out in turn', async () => {
    const h = harness(4);
    for (let i = 0; i < 20; i++) h.waker.hear(change(trainJob(`j${i}`, '1')));
    expect(h.signalled).toHaveLength(4);
    await h.release();
    expect(h.signalled).toHaveLength(20);
    expect(h.peak()).toBe(4);
  });

  it('a Watch nobody runs counts as not-watched; a failed signal counts as failed, does not stop the queue, and is sent again until it lands', async () => {
    const sent: string[] = [];
    let brokenFailures = 2;
    const failing = createWatchWaker({
      config,
      firstRetryMs: 1,
      lists: { subscribe: () => () => {}, snapshot: () => undefined },
      count: (r) => counts.push(r),
      signal: async (id) => {
        sent.push(id);
        if (id.includes('broken') && brokenFailures-- > 0) throw new Error('unavailable');
        return id.includes('unwatched') ? 'not-watched' : 'signalled';
      },
    });
    const counts: WakeResult[] = [];
    for (const name of ['broken', 'unwatched', 'ok']) failing.hear(change(trainJob(name, '1')));
    // A change of the broken one's TrainJob while its first try is in flight (and then fails) rides with the next try.
    failing.hear(change(trainJob('broken', '2')));
    await failing.idle();
    expect(counts.slice().sort()).toEqual(['coalesced', 'failed', 'failed', 'not-watched', 'signalled', 'signalled']);
    expect(sent.filter((id) => id.includes('broken'))).toHaveLength(3);
  });

  it('a wake that keeps failing is given up once watchRecheck has passed since its first failure (the Watch has read by then)', async () => {
    let clock = NOW;
    const counts: WakeResult[] = [];
    const waker = createWatchWaker({
      config,
      firstRetryMs: 1,
      now: () => clock,
      lists: { subscribe: () => () => {}, snapshot: () => undefined },
      count: (r) => counts.push(r),
      signal: async () => {
        // Each try takes five minutes of the waker's clock: the fourth failure is 15m after the first.
        clock += 5 * 60_000;
        throw new Error('unavailable');
      },
    });
    waker.hear(change(trainJob('a', '1')));
    await waker.idle();
    expect(counts).toEqual(['failed', 'failed', 'failed', 'failed']);
  });

  it('stopping cancels the wakes waiting to be sent again', async () => {
    const sent: string[] = [];
    const waker = createWatchWaker({
      config,
      firstRetryMs: 60_000,
      lists: { subscribe: () => () => {}, snapshot: () => undefined },
      signal: async (id) => {
        sent.push(id);
        throw new Error('unavailable');
      },
    });
    const stop = new AbortController();
    const running = waker.run(stop.signal);
    waker.hear(change(trainJob('a', '1')));
    await new Promise((r) => setTimeout(r, 0));
    stop.abort();
    // Resolves at once, not after the minute's wait.
    await running;
    await waker.idle();
    expect(sent).toEqual(['watch/ml/a/uid-a']);
  });

  it("a worker's first list wakes only the Watches of TrainJobs that ended within watchRecheck or are being deleted", async () => {
    const h = harness();
    const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();
    const deleting = trainJob('deleting', '1');
    deleting.metadata!.deletionTimestamp = minutesAgo(30);
    h.waker.hear(change(trainJob('running', '1'), 'first-list'));
    h.waker.hear(change(deleting, 'first-list'));
    h.waker.hear(change(trainJob('ended-now', '1', minutesAgo(1)), 'first-list'));
    h.waker.hear(change(trainJob('ended-long-ago', '1', minutesAgo(16)), 'first-list'));
    h.waker.hear(change(workload('running', '1'), 'first-list', false, 'Workload'));
    await h.release();
    expect(h.signalled).toEqual(['watch/ml/deleting/uid-deleting', 'watch/ml/ended-now/uid-ended-now']);
    // What the first list saw counts as seen: the same view through the watch sends nothing.
    h.waker.hear(change(trainJob('running', '1')));
    await h.release();
    h.waker.hear(change(trainJob('running', '2'), 'relist'));
    await h.release();
    expect(h.signalled).toEqual(['watch/ml/deleting/uid-deleting', 'watch/ml/ended-now/uid-ended-now', 'watch/ml/running/uid-running']);
  });

  it("says once, when the first list is through, how many Watches it woke; a failed wake is a warning with its cause and try", async () => {
    const lines: { message: string; fields?: Record<string, unknown>; level?: string }[] = [];
    let failures = 1;
    const waker = createWatchWaker({
      config,
      firstRetryMs: 1,
      now: () => NOW,
      lists: { subscribe: () => () => {}, snapshot: () => undefined },
      sweepEveryMs: 0,
      log: (message, fields, level) => lines.push({ message, fields, level }),
      signal: async () => {
        if (failures-- > 0) throw new Error('deadline exceeded');
        return 'signalled';
      },
    });
    const ended = new Date(NOW - 60_000).toISOString();
    waker.hear(change(trainJob('ended', '1', ended), 'first-list'));
    waker.hear(change(trainJob('running', '1'), 'first-list'));
    waker.listed(new Set(['uid-ended', 'uid-running']));
    await waker.idle();
    // A later list (a relist) says nothing more.
    waker.listed(new Set(['uid-ended', 'uid-running']));
    await waker.idle();
    expect(lines).toEqual([
      {
        message: 'first list of the TrainJobs: woke the Watches of those that ended within watchRecheck or are being deleted',
        fields: { namespace: 'ml', trainJobs: 2, watchesWoken: 1 },
        level: undefined,
      },
      { message: 'wake of a Watch failed; sent again later', fields: { workflowId: 'watch/ml/ended/uid-ended', attempts: 1, error: 'deadline exceeded' }, level: 'warn' },
    ]);
  });

  // An API server restart right after a Start, then a Stop: the TrainJob came and went while the
  // feed's watch was broken, so neither list holds it and no change is heard (chaos, Kueue stops).
  it('after a list, wakes the running Watches whose TrainJob the list did not hold; asks Temporal again while it does not answer', async () => {
    const signalled: string[] = [];
    let answers = 0;
    const waker = createWatchWaker({
      config,
      firstRetryMs: 1,
      now: () => NOW,
      lists: { subscribe: () => () => {}, snapshot: () => undefined },
      signal: async (id) => {
        signalled.push(id);
        return 'signalled';
      },
      runningWatches: async (namespace) => {
        if (++answers === 1) throw new Error('Temporal unavailable');
        return [
          { namespace, name: 'a', uid: 'uid-a' },
          { namespace, name: 'gone', uid: 'uid-gone' },
        ];
      },
    });
    waker.listed(new Set(['uid-a', 'uid-b']));
    await new Promise((r) => setTimeout(r, 20));
    await waker.idle();
    expect(answers).toBe(2);
    expect(signalled).toEqual(['watch/ml/gone/uid-gone']);
  });

  // A worker that may list and not watch relists every few seconds: one visibility query per list
  // would be one scan of every running Watch of the namespace each time.
  it('sweeps at most once per sweepEveryMs: lists in between wait, and the latest of them is swept', async () => {
    let clock = 0;
    const asked: number[] = [];
    const signalled: string[] = [];
    const waker = createWatchWaker({
      config,
      sweepEveryMs: 100,
      now: () => clock,
      lists: { subscribe: () => () => {}, snapshot: () => undefined },
      signal: async (id) => {
        signalled.push(id);
        return 'signalled';
      },
      runningWatches: async (namespace) => {
        asked.push(clock);
        return [{ namespace, name: 'gone', uid: 'uid-gone' }];
      },
    });
    waker.listed(new Set(['uid-gone']));
    clock = 10;
    waker.listed(new Set(['uid-gone']));
    clock = 20;
    waker.listed(new Set(['uid-other'])); // the latest list: the one swept next
    await new Promise((r) => setTimeout(r, 20));
    expect(asked).toEqual([0]);
    expect(signalled).toEqual([]);
    clock = 100;
    await waker.idle();
    expect(asked).toEqual([0, 100]);
    expect(signalled).toEqual(['watch/ml/gone/uid-gone']);
  });

  it('run() subscribes to the TrainJobs (and in Kueue mode the Workloads) of the namespace, keeps them asked for, and stops on abort', () => {
    const subscribed: string[] = [];
    const asked: string[] = [];
    let listeners = 0;
    const waker = createWatchWaker({
      config,
      keepInStepMs: 60_000,
      signal: async () => 'signalled',
      lists: {
        subscribe: (kind, namespace, label, _listener: FeedListener, listed?: unknown) => {
          subscribed.push(`${kind.plural} ${namespace} ${label}${listed ? ' +listed' : ''}`);
          listeners += 1;
          return () => (listeners -= 1);
        },
        snapshot: (kind) => {
          asked.push(kind.plural);
          return undefined;
        },
      },
    });
    const stop = new AbortController();
    void waker.run(stop.signal);
    // Only the TrainJobs' lists sweep for Watches whose TrainJob is gone.
    expect(subscribed).toEqual([`${Trainer.trainJobPlural} ml ${Labels.jobId} +listed`, `workloads ml ${Labels.kueueJobUid}`]);
    expect(asked).toEqual([Trainer.trainJobPlural, 'workloads']);
    stop.abort();
    expect(listeners).toBe(0);
  });

  it('stopping drops the wakes still queued and resolves only once the signals in flight have settled', async () => {
    const h = harness(1);
    const stop = new AbortController();
    const running = h.waker.run(stop.signal);
    let stopped = false;
    void running.then(() => (stopped = true));
    h.waker.hear(change(trainJob('a', '1')));
    h.waker.hear(change(trainJob('b', '1')));
    stop.abort();
    await new Promise((r) => setTimeout(r, 0));
    expect(stopped).toBe(false); // a's signal is still in flight
    await h.release();
    await running;
    expect(h.signalled).toEqual(['watch/ml/a/uid-a']); // b was queued: dropped
    expect(h.counts).toEqual(['signalled']);
    h.waker.hear(change(trainJob('c', '1')));
    await new Promise((r) => setTimeout(r, 0));
    expect(h.signalled).toEqual(['watch/ml/a/uid-a']);
  });
});

describe('MultiKueue: a worker cluster whose MultiKueueCluster changes', () => {
  it("wakes, through the waker's queue, the Watches of the TrainJobs placed there (by the Workload feed), within a poll", async () => {
    const placed = (job: string, cluster: string): KubeObject => ({ ...workload(job, '1'), status: { clusterName: cluster } }) as KubeObject;
    let active = 'True';
    const signalled: string[] = [];
    const waker = createWatchWaker({
      config,
      lists: { subscribe: () => () => {}, snapshot: (kind) => (kind.plural === 'workloads' ? [placed('a', 'worker-1'), placed('b', 'worker-2')] : undefined) },
      signal: async (id) => (signalled.push(id), 'signalled'),
      workerClusters: {
        names: ['worker-1'],
        read: async (name) => ({ name, found: { metadata: { name }, status: { conditions: [{ type: 'Active', status: active, reason: 'R' }] } } as KubeObject }),
        everyMs: 20,
      },
    });
    const stop = new AbortController();
    const running = waker.run(stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(signalled).toEqual([]);
    active = 'False';
    const deadline = Date.now() + 5_000;
    while (signalled.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(signalled).toEqual(['watch/ml/a/uid-a']);
    stop.abort();
    await running;
  });
});
