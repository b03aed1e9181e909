// Who hears of the feeds of WatchedLists (watched-lists.ts): the checks waiting for a change of
// one label value (changed()), and the subscribers told of every change and of every list (the
// Watch waker, src/worker/watch-waker.ts). Keyed by feed key, so kept across a feed's restarts.
import type { KubeObject } from '../model/kube.js';
import { feedKey, waiterKey, type Feed } from './feed.js';
import { ANY } from './shared-lists.js';

/**
 * An object of a feed that changed, for a subscriber (the Watch waker, src/worker/watch-waker.ts):
 * `watch` as the watch reported it (added, modified or deleted); `relist` found different, new or
 * gone by a list after the feed was out of step (what the watch missed meanwhile); `first-list` in
 * the feed's first list, with no earlier copy to compare.
 */
export interface FeedChange {
  /** The feed's kind (a list's items do not say it). */
  kind: string;
  object: KubeObject;
  seen: 'watch' | 'relist' | 'first-list';
  deleted: boolean;
}

export type FeedListener = (change: FeedChange) => void;

/** Told after every list of a feed (its first and each relist) the UIDs the list held. */
export type ListedListener = (uids: ReadonlySet<string>) => void;

const keyOf = (feed: Feed) => feedKey(feed.kind, feed.namespace, feed.label);

export class FeedSubscribers {
  /** Who waits for a change, by feed key and label value. */
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Who hears every change, by feed key: kept across a feed's restarts. */
  private readonly listeners = new Map<string, Set<FeedListener>>();
  /** Who hears of every list, by feed key. */
  private readonly listedListeners = new Map<string, Set<ListedListener>>();

  /** Resolves at the next change of an object of the feed `key` with this label value (or ANY), or after `ms`. */
  changed(key: string, value: string, ms: number): Promise<void> {
    const waiterAt = waiterKey(key, value);
    return new Promise((resolve) => {
      const waiters = this.waiters.get(waiterAt) ?? new Set<() => void>();
      this.waiters.set(waiterAt, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(waiterAt) === waiters) this.waiters.delete(waiterAt);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** Tells `listener` of every change of the feed `key`, and `listed` of its lists, until the returned function is called. */
  subscribe(key: string, listener: FeedListener, listed?: ListedListener): () => void {
    const stopChanges = addTo(this.listeners, key, listener);
    const stopListed = listed ? addTo(this.listedListeners, key, listed) : () => {};
    return () => {
      stopChanges();
      stopListed();
    };
  }

  /** A (re)list's changes against what the feed held before, then the UIDs it held, for the subscribers. */
  relisted(feed: Feed, before: Map<string, KubeObject>, first: boolean): void {
    const key = keyOf(feed);
    const listeners = this.listeners.get(key);
    if (listeners && listeners.size > 0) {
      const seen = first ? 'first-list' : 'relist';
      for (const [uid, object] of feed.objects) {
        if (before.get(uid)?.metadata?.resourceVersion !== object.metadata?.resourceVersion) tell(listeners, { kind: feed.kind.kind, object, seen, deleted: false });
      }
      for (const [uid, object] of before) if (!feed.objects.has(uid)) tell(listeners, { kind: feed.kind.kind, object, seen, deleted: true });
    }
    const listedListeners = this.listedListeners.get(key);
    if (listedListeners) tell(listedListeners, new Set(feed.objects.keys()));
  }

  /**
   * A change the watch reported (ADDED, MODIFIED or DELETED), already put in the feed: told to the
   * subscribers, then to the checks waiting on its label value before (`before`) or now, or on any.
   */
  heard(feed: Feed, type: string, object: KubeObject, before: string | undefined): void {
    const key = keyOf(feed);
    const listeners = this.listeners.get(key);
    if (listeners && type !== 'ERROR') tell(listeners, { kind: feed.kind.kind, object, seen: 'watch', deleted: type === 'DELETED' });
    for (const value of new Set([before, object?.metadata?.labels?.[feed.label], ANY])) {
      if (value === undefined) continue;
      for (const wake of [...(this.waiters.get(waiterKey(key, value)) ?? [])]) wake();
    }
  }
}

function tell<T>(listeners: Set<(told: T) => void>, told: T): void {
  for (const listener of [...listeners]) {
    try {
      listener(told);
    } catch {
      // A subscriber's bug must not stop the feed; the subscriber counts its own failures.
    }
  }
}

/** Adds `item` to the set at `key`; the returned function removes it (and the set once empty). */
function addTo<T>(sets: Map<string, Set<T>>, key: string, item: T): () => void {
  const set = sets.get(key) ?? new Set<T>();
  sets.set(key, set);
  set.add(item);
  return () => {
    set.delete(item);
    if (set.size === 0 && sets.get(key) === set) sets.delete(key);
  };
}
