// Checks answered from a watch. For each kind, namespace and label the worker's checks ask about
// (step 9's Workload waits, the Watches of running TrainJobs), one list and then one watch keep the
// labelled objects in memory, and a check reads them there.
//
// Why: polling with lists, even batched (batched-lists.ts), has the API server find and send every
// waited-for object again at every check; with 10,000 waits that is 10,000 Workloads a second, and
// each list scans the namespace. A watch sends each change once (docs/performance.md has the
// figures). While a feed is not in step (before its first list, while its watch reconnects, when
// it has heard nothing for FRESH_MS, or when the list or the watch is refused, e.g. by RBAC without
// `watch`), a check goes to the batched lists as before: what a check answers when the API server
// is away or refuses is what it was.
import type { Watch } from '@kubernetes/client-node';
import type { KubeObject } from '../model/kube.js';
import type { KubeAnswer } from './call.js';
import type { KubeClients } from './clients.js';
import { collectionPath, LIST_PAGE_SIZE, ObjectCalls, type NamespacedKind } from './objects.js';
import { feedKey, itemsOf, put, putKept, remove, type Feed } from './feed.js';
import { FeedSubscribers, type FeedListener, type ListedListener } from './feed-subscribers.js';
import { keptOf } from './kept.js';
import { ANY, type SharedLists } from './shared-lists.js';

export type { FeedChange, FeedListener, ListedListener } from './feed-subscribers.js';

/** A feed that heard nothing (no change, no bookmark, no reconnection) this long is not trusted. */
export const FRESH_MS = 90_000;
/** A feed no check asked for this long stops, and its objects are dropped. */
export const IDLE_MS = 60_000;
/** After a refused or broken list or watch, the checks use the batched lists this long before the feed tries again. */
export const RETRY_MS = 5_000;
/**
 * The API server ends each watch after this long, and the feed resumes from the last
 * resourceVersion it saw: so a feed hears from the server at least this often, and one whose
 * connection went silent is found out within FRESH_MS.
 */
export const WATCH_TIMEOUT_SECONDS = 60;

type Clock = () => number;

export class WatchedLists implements SharedLists {
  private readonly feeds = new Map<string, Feed>();
  /** The checks waiting for a change and the subscribers (feed-subscribers.ts). */
  private readonly subscribers = new FeedSubscribers();
  private readonly calls: ObjectCalls;
  private readonly idleTimer: NodeJS.Timeout;

  constructor(
    kube: KubeClients,
    private readonly watcher: Pick<Watch, 'watch'>,
    private readonly fallback: SharedLists,
    requestTimeoutMs: number,
    private readonly now: Clock = Date.now,
  ) {
    this.calls = new ObjectCalls(kube, { requestTimeoutMs });
    this.idleTimer = setInterval(() => this.stopIdle(), IDLE_MS / 4);
    this.idleTimer.unref();
  }

  find(kind: NamespacedKind, namespace: string, label: string, value: string, signal?: AbortSignal): Promise<KubeAnswer<KubeObject[]>> {
    const feed = this.inStep(kind, namespace, label);
    if (feed) return Promise.resolve({ answered: 'ok', value: itemsOf(feed, value) });
    return this.fallback.find(kind, namespace, label, value, signal);
  }

  /** As SharedLists.changed; `value` undefined: a change of any object of the feed. */
  changed(kind: NamespacedKind, namespace: string, label: string, value: string | undefined, ms: number): Promise<void> {
    return this.subscribers.changed(feedKey(kind, namespace, label), value ?? ANY, ms);
  }

  /**
   * Tells `listener` of every change of the feed's objects (FeedChange) until the returned function
   * is called. It does not start the feed: the subscriber keeps it asked for (snapshot()), as a
   * check does.
   */
  subscribe(kind: NamespacedKind, namespace: string, label: string, listener: FeedListener, listed?: ListedListener): () => void {
    return this.subscribers.subscribe(feedKey(kind, namespace, label), listener, listed);
  }

  /**
   * Every object of the feed, when it is in step (what a list of `label` would answer, in no
   * particular order); undefined when it is not, and the caller lists. The admission check
   * controller reads the namespace's Workloads and TrainJobs so, once a second.
   */
  snapshot(kind: NamespacedKind, namespace: string, label: string): KubeObject[] | undefined {
    const feed = this.inStep(kind, namespace, label);
    return feed ? [...feed.objects.values()] : undefined;
  }

  /** The feed, if it is in step; else undefined, and the feed (re)starts unless it is starting or waiting to retry. */
  private inStep(kind: NamespacedKind, namespace: string, label: string): Feed | undefined {
    const feed = this.feedFor(kind, namespace, label);
    const now = this.now();
    feed.lastAsked = now;
    if (feed.state === 'watching' && now - feed.lastHeard < FRESH_MS) return feed;
    if (feed.state === 'watching' || (feed.state === 'down' && now >= feed.retryAt)) void this.start(feed);
    return undefined;
  }

  /**
   * Drops every feed; each lists and watches again at its next check. Authorization is checked
   * when a list or watch begins, so a feed in step keeps its watch after a permission is taken
   * away: this makes the worker ask again (the RBAC tests do, after changing the Role).
   */
  resync(): void {
    for (const [key, feed] of this.feeds) this.stop(key, feed);
  }

  /** Stops every feed (the worker is shutting down). */
  close(): void {
    clearInterval(this.idleTimer);
    this.resync();
  }

  private feedFor(kind: NamespacedKind, namespace: string, label: string): Feed {
    const key = feedKey(kind, namespace, label);
    let feed = this.feeds.get(key);
    if (!feed) {
      feed = {
        kind,
        namespace,
        label,
        state: 'down',
        objects: new Map(),
        byValue: new Map(),
        resourceVersion: '',
        lastHeard: 0,
        lastAsked: this.now(),
        retryAt: 0,
        generation: 0,
      };
      this.feeds.set(key, feed);
    }
    return feed;
  }

  /** List, then watch from the list's resourceVersion. */
  private async start(feed: Feed): Promise<void> {
    // The generation first: the watch being replaced must not report its own end.
    const generation = ++feed.generation;
    feed.stop?.abort();
    feed.stop = undefined;
    feed.state = 'starting';
    // In pages, each kept (trimmed) before the next is asked for: a new worker beside 10,000
    // dispatch TrainJobs died of its first list, whole, in the 10,000-Watch bench.
    const listed = await this.calls
      .listInPages(feed.kind, feed.namespace, feed.label, { pageSize: LIST_PAGE_SIZE, keep: keptOf(feed.kind), stillWanted: () => generation === feed.generation })
      .catch(() => undefined);
    if (generation !== feed.generation) return;
    if (listed?.answered !== 'ok') return this.down(feed);
    const items = listed.value.items ?? [];
    const resourceVersion = listed.value.metadata?.resourceVersion ?? '';
    const before = new Map(feed.objects);
    const first = !feed.listed;
    feed.listed = true;
    feed.objects.clear();
    feed.byValue.clear();
    for (const item of items) putKept(feed, item);
    this.subscribers.relisted(feed, before, first);
    feed.resourceVersion = resourceVersion;
    feed.lastHeard = this.now();
    await this.watch(feed, generation);
  }

  private async watch(feed: Feed, generation: number): Promise<void> {
    let ended = false;
    const stop = await this.watcher
      .watch(
        collectionPath(feed.kind, feed.namespace),
        {
          labelSelector: feed.label,
          resourceVersion: feed.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: WATCH_TIMEOUT_SECONDS,
        },
        (type: string, object: KubeObject) => {
          if (generation === feed.generation) this.onEvent(feed, type, object);
        },
        (error: unknown) => {
          ended = true;
          if (generation !== feed.generation || feed.state === 'down') return;
          // The server's own end of a watch resumes where it stopped; anything else lists again later.
          if (error === null || error === undefined) void this.watch(feed, generation);
          else this.down(feed);
        },
      )
      .catch(() => undefined);
    if (generation !== feed.generation) return stop?.abort();
    if (!stop) return this.down(feed);
    feed.stop = stop;
    if (!ended) {
      feed.state = 'watching';
      feed.lastHeard = this.now();
    }
  }

  private onEvent(feed: Feed, type: string, object: KubeObject): void {
    feed.lastHeard = this.now();
    const resourceVersion = object?.metadata?.resourceVersion;
    if (type === 'ERROR') {
      // Typically 410 Gone: the resourceVersion is too old to resume from; list again at once.
      feed.state = 'down';
      feed.retryAt = 0;
      feed.generation++;
      feed.stop?.abort();
      return;
    }
    if (resourceVersion) feed.resourceVersion = resourceVersion;
    if (type === 'BOOKMARK') return;
    const before = feed.objects.get(object?.metadata?.uid ?? '')?.metadata?.labels?.[feed.label];
    if (type === 'ADDED' || type === 'MODIFIED') put(feed, object);
    else if (type === 'DELETED') remove(feed, object);
    this.subscribers.heard(feed, type, object, before);
  }

  private down(feed: Feed): void {
    feed.state = 'down';
    feed.retryAt = this.now() + RETRY_MS;
    feed.stop?.abort();
    feed.stop = undefined;
  }

  private stop(key: string, feed: Feed): void {
    feed.generation++;
    feed.state = 'down';
    feed.stop?.abort();
    this.feeds.delete(key);
  }

  private stopIdle(): void {
    const now = this.now();
    for (const [key, feed] of this.feeds) if (now - feed.lastAsked >= IDLE_MS) this.stop(key, feed);
  }
}
