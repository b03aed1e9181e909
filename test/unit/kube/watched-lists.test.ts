// WatchedLists: a check reads the watch-fed copy while the feed is in step, and the batched lists
// (what it did before) whenever it is not: before the first list, after a refused list or a broken
// watch, after a 410 ERROR event, when the feed has gone silent, and after close.
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { KubeAnswer } from '../../../src/kube/call.js';
import type { KubeClients } from '../../../src/kube/clients.js';
import { LIST_PAGE_SIZE, workloads } from '../../../src/kube/objects.js';
import {
  FRESH_MS,
  RETRY_MS,
  WatchedLists,
  WATCH_TIMEOUT_SECONDS,
} from '../../../src/kube/watched-lists.js';
import type { SharedLists } from '../../../src/kube/shared-lists.js';
import { Labels } from '../../../src/model/constants.js';
import type { KubeObject } from '../../../src/model/kube.js';
import { recordingWatcher } from './support/recording-watcher.js';

const KIND = workloads('v1beta2');
const LABEL = Labels.kueueJobUid;

const workload = (name: string, uid: string, jobUid: string, resourceVersion = '1'): KubeObject => ({
  metadata: { name, uid, resourceVersion, labels: { [LABEL]: jobUid }, managedFields: [{ manager: 'kueue' }] } as never,
  spec: { active: true },
});

type ListParams = { labelSelector: string; limit?: number; _continue?: string };

/** A KubeClients whose lists answer from `list`, a Watch that records each call, a fallback that counts, and a clock the test moves. */
function harness(list: (params: ListParams) => Promise<unknown>) {
  const lists: string[] = [];
  const { watcher, watches } = recordingWatcher();
  const kube = {
    custom: {
      listNamespacedCustomObject(params: ListParams) {
        lists.push(params.labelSelector);
        return list(params);
      },
    },
  } as unknown as KubeClients;
  const fallbackAsked: string[] = [];
  const fallback: SharedLists = {
    async find(_kind, _namespace, _label, value) {
      fallbackAsked.push(value);
      return { answered: 'ok', value: [{ metadata: { name: `listed-${value}` } }] };
    },
  };
  let now = 1_000_000;
  const clock = { advance: (ms: number) => (now += ms) };
  const watched = new WatchedLists(kube, watcher, fallback, 1000, () => now);
  const find = (value: string) => watched.find(KIND, 'ml', LABEL, value);
  /** Lets the feed's list and watch calls (promises) run. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { watched, find, settle, lists, watches, fallbackAsked, clock };
}

const names = (answer: KubeAnswer<KubeObject[]>) =>
  answer.answered === 'ok' ? answer.value.map((o) => o.metadata?.name) : answer;

describe('WatchedLists', () => {
  it('lists once, watches from the list, and then answers every check from the watch-fed copy', async () => {
    const h = harness(async () => ({
      metadata: { resourceVersion: '41' },
      items: [workload('wl-b', 'u2', 'job-a'), workload('wl-a', 'u1', 'job-a'), workload('wl-c', 'u3', 'job-c')],
    }));
    // Not in step yet: the batched lists answer, as before; a snapshot has nothing to give.
    expect(h.watched.snapshot(KIND, 'ml', LABEL)).toBeUndefined();
    expect(names(await h.find('job-a'))).toEqual(['listed-job-a']);
    await h.settle();
    expect(h.watched.snapshot(KIND, 'ml', LABEL)?.map((o) => o.metadata?.name).sort()).toEqual(['wl-a', 'wl-b', 'wl-c']);
    expect(h.lists).toEqual([LABEL]);
    expect(h.watches).toHaveLength(1);
    expect(h.watches[0]!.path).toBe('/apis/kueue.x-k8s.io/v1beta2/namespaces/ml/workloads');
    expect(h.watches[0]!.query).toMatchObject({
      labelSelector: LABEL,
      resourceVersion: '41',
      allowWatchBookmarks: true,
      timeoutSeconds: WATCH_TIMEOUT_SECONDS,
    });

    // In step: what a list of label=value would answer, in name order, without managedFields.
    const answer = await h.find('job-a');
    expect(names(answer)).toEqual(['wl-a', 'wl-b']);
    expect((answer as { value: KubeObject[] }).value[0]!.metadata).not.toHaveProperty('managedFields');
    expect(names(await h.find('job-x'))).toEqual([]);

    const watch = h.watches[0]!;
    watch.event('ADDED', workload('wl-x', 'u9', 'job-x', '42'));
    watch.event('MODIFIED', { ...workload('wl-a', 'u1', 'job-a', '43'), spec: { active: false } });
    watch.event('DELETED', workload('wl-b', 'u2', 'job-a', '44'));
    watch.event('MODIFIED', workload('wl-c', 'u3', 'job-moved', '45'));
    expect(names(await h.find('job-x'))).toEqual(['wl-x']);
    expect(await h.find('job-a')).toMatchObject({ answered: 'ok', value: [{ spec: { active: false } }] });
    expect(names(await h.find('job-c'))).toEqual([]);
    expect(names(await h.find('job-moved'))).toEqual(['wl-c']);
    expect(h.fallbackAsked).toEqual(['job-a']);
    expect(h.lists).toHaveLength(1);

    // The server's own end of the watch resumes from the last resourceVersion seen, without a list.
    watch.event('BOOKMARK', { metadata: { resourceVersion: '50' } });
    watch.end(null);
    await h.settle();
    expect(h.watches).toHaveLength(2);
    expect(h.watches[1]!.query.resourceVersion).toBe('50');
    expect(names(await h.find('job-x'))).toEqual(['wl-x']);
    expect(h.lists).toHaveLength(1);
    h.watched.close();
    expect(h.watches[1]!.stop.signal.aborted).toBe(true);
  });

  it('lists in pages of LIST_PAGE_SIZE, keeps every page, and watches from their snapshot; a page refused lists again from the start', async () => {
    const all = Array.from({ length: LIST_PAGE_SIZE + 2 }, (_, i) => workload(`wl-${i}`, `u${i}`, `job-${i % 3}`));
    let refuseSecondPage = true;
    const asked: ListParams[] = [];
    const h = harness(async (params) => {
      asked.push(params);
      const from = Number(params._continue ?? 0);
      if (from > 0 && refuseSecondPage) {
        refuseSecondPage = false;
        throw new ApiException(410, 'Gone', { reason: 'Expired' }, {});
      }
      const next = from + (params.limit ?? all.length);
      return {
        metadata: { resourceVersion: '77', ...(next < all.length ? { continue: String(next) } : {}) },
        items: all.slice(from, next),
      };
    });
    await h.find('job-0');
    await h.settle();
    // The second page refused: no watch, the checks on the batched lists until RETRY_MS.
    expect(asked.map((p) => [p.limit, p._continue])).toEqual([[LIST_PAGE_SIZE, undefined], [LIST_PAGE_SIZE, String(LIST_PAGE_SIZE)]]);
    expect(h.watches).toHaveLength(0);
    expect(h.watched.snapshot(KIND, 'ml', LABEL)).toBeUndefined();
    h.clock.advance(RETRY_MS + 1);
    await h.find('job-0');
    await h.settle();
    // Again from the first page, then the second: every object kept, the watch from the snapshot's version.
    expect(asked.slice(2).map((p) => [p.limit, p._continue])).toEqual([[LIST_PAGE_SIZE, undefined], [LIST_PAGE_SIZE, String(LIST_PAGE_SIZE)]]);
    expect(h.watched.snapshot(KIND, 'ml', LABEL)).toHaveLength(all.length);
    expect(h.watches).toHaveLength(1);
    expect(h.watches[0]!.query.resourceVersion).toBe('77');
    expect(names(await h.find('job-1'))).toHaveLength(all.filter((w) => w.metadata?.labels?.[LABEL] === 'job-1').length);
    h.watched.close();
  });

  it('changed() wakes a check at the first change of an object with its label value, or after its interval', async () => {
    const h = harness(async () => ({ metadata: { resourceVersion: '1' }, items: [] }));
    await h.find('job-a');
    await h.settle();
    const woken: string[] = [];
    const wait = (value: string, ms: number) => h.watched.changed(KIND, 'ml', LABEL, value, ms).then(() => woken.push(value));
    const a = wait('job-a', 60_000);
    const b = wait('job-b', 60_000);
    const c = wait('job-c', 20);
    h.watches[0]!.event('ADDED', workload('wl-a', 'u1', 'job-a', '2'));
    await a;
    expect(woken).toEqual(['job-a']);
    await c;
    expect(woken).toEqual(['job-a', 'job-c']);
    // A label moved from one value to another wakes both.
    const a2 = wait('job-a', 60_000);
    h.watches[0]!.event('MODIFIED', workload('wl-a', 'u1', 'job-b', '3'));
    await Promise.all([a2, b]);
    expect(woken.slice(2).sort()).toEqual(['job-a', 'job-b']);
    h.watched.close();
  });

  it('a refused list leaves the checks on the batched lists, and the feed tries again after RETRY_MS', async () => {
    let refuse = true;
    const h = harness(async () =>
      refuse
        ? Promise.reject(new ApiException(403, 'Forbidden', { reason: 'Forbidden', message: 'no' }, {}))
        : { metadata: { resourceVersion: '7' }, items: [workload('wl-a', 'u1', 'job-a')] },
    );
    await h.find('job-a');
    await h.settle();
    expect(h.lists).toHaveLength(1);
    expect(h.watches).toHaveLength(0);
    h.clock.advance(RETRY_MS - 1);
    await h.find('job-a');
    await h.settle();
    expect(h.lists).toHaveLength(1);
    refuse = false;
    h.clock.advance(1);
    await h.find('job-a');
    await h.settle();
    expect(h.lists).toHaveLength(2);
    expect(names(await h.find('job-a'))).toEqual(['wl-a']);
    expect(h.fallbackAsked).toEqual(['job-a', 'job-a', 'job-a']);
    h.watched.close();
  });

  it('a broken watch, a 410 ERROR event or a silent feed sends the checks back to the batched lists until a new list', async () => {
    const h = harness(async () => ({ metadata: { resourceVersion: '1' }, items: [workload('wl-a', 'u1', 'job-a')] }));
    await h.find('job-a');
    await h.settle();
    expect(names(await h.find('job-a'))).toEqual(['wl-a']);

    // Broken: the fallback answers until RETRY_MS has passed, then a new list and watch.
    h.watches[0]!.end(new Error('socket hang up'));
    expect(names(await h.find('job-a'))).toEqual(['listed-job-a']);
    await h.settle();
    expect(h.lists).toHaveLength(1);
    h.clock.advance(RETRY_MS);
    await h.find('job-a');
    await h.settle();
    expect(h.lists).toHaveLength(2);
    expect(h.watches).toHaveLength(2);
    expect(names(await h.find('job-a'))).toEqual(['wl-a']);

    // 410 Gone: a new list at the next check.
    h.watches[1]!.event('ERROR', { metadata: {}, code: 410 } as KubeObject);
    expect(h.watches[1]!.stop.signal.aborted).toBe(true);
    expect(names(await h.find('job-a'))).toEqual(['listed-job-a']);
    await h.settle();
    expect(h.lists).toHaveLength(3);
    expect(names(await h.find('job-a'))).toEqual(['wl-a']);

    // Silent for FRESH_MS: not trusted; the check lists, and the feed starts again.
    h.clock.advance(FRESH_MS);
    expect(names(await h.find('job-a'))).toEqual(['listed-job-a']);
    await h.settle();
    expect(h.lists).toHaveLength(4);
    expect(h.watches[2]!.stop.signal.aborted).toBe(true);
    expect(names(await h.find('job-a'))).toEqual(['wl-a']);
    h.watched.close();
  });

  it('subscribe() hears every change: the first list, each watch event, and what a relist after a break finds changed, new or gone; and each list\'s UIDs', async () => {
    let listed = 0;
    const h = harness(async () =>
      ++listed === 1
        ? { metadata: { resourceVersion: '10' }, items: [workload('wl-a', 'u1', 'job-a', '5'), workload('wl-b', 'u2', 'job-b', '6')] }
        : { metadata: { resourceVersion: '20' }, items: [workload('wl-a', 'u1', 'job-a', '5'), workload('wl-c', 'u3', 'job-c', '19')] },
    );
    const heard: string[] = [];
    const lists: string[][] = [];
    const unsubscribe = h.watched.subscribe(
      KIND,
      'ml',
      LABEL,
      (c) => heard.push(`${c.seen} ${c.kind} ${c.object.metadata?.name}@${c.object.metadata?.resourceVersion}${c.deleted ? ' deleted' : ''}`),
      (uids) => lists.push([...uids].sort()),
    );
    expect(h.watched.snapshot(KIND, 'ml', LABEL)).toBeUndefined();
    await h.settle();
    expect(heard.splice(0)).toEqual(['first-list Workload wl-a@5', 'first-list Workload wl-b@6']);

    h.watches[0]!.event('MODIFIED', workload('wl-b', 'u2', 'job-b', '11'));
    h.watches[0]!.event('BOOKMARK', { metadata: { resourceVersion: '12' } });
    expect(heard.splice(0)).toEqual(['watch Workload wl-b@11']);

    // Broken, then listed again: wl-a is as it was; wl-b went and wl-c came while nobody watched.
    h.watches[0]!.end(new Error('socket hang up'));
    h.clock.advance(RETRY_MS);
    h.watched.snapshot(KIND, 'ml', LABEL);
    await h.settle();
    expect(heard.splice(0)).toEqual(['relist Workload wl-c@19', 'relist Workload wl-b@11 deleted']);
    // Each list, the first and the relist, is told with the UIDs it held.
    expect(lists).toEqual([['u1', 'u2'], ['u1', 'u3']]);

    h.watches[1]!.event('DELETED', workload('wl-c', 'u3', 'job-c', '21'));
    expect(heard.splice(0)).toEqual(['watch Workload wl-c@21 deleted']);
    unsubscribe();
    h.watches[1]!.event('ADDED', workload('wl-d', 'u4', 'job-d', '22'));
    expect(heard).toEqual([]);
    h.watched.close();
  });
});
