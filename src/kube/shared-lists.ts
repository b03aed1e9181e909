// What the worker's checks read (step 9's Workload waits, the Watches): the batched lists, or a
// WatchedLists in front of them (watched-lists.ts).
import type { KubeObject } from '../model/kube.js';
import type { KubeAnswer } from './call.js';
import type { NamespacedKind } from './objects.js';

/** The lists the checks read: the batched lists, or a WatchedLists in front of them. */
export interface SharedLists {
  find(kind: NamespacedKind, namespace: string, label: string, value: string, signal?: AbortSignal): Promise<KubeAnswer<KubeObject[]>>;
  /**
   * Resolves when the watch sees a change of an object labelled `label=value`, or after `ms`,
   * whichever is first: a check waits on it instead of its whole interval. Absent, it waits `ms`.
   */
  changed?(kind: NamespacedKind, namespace: string, label: string, value: string | undefined, ms: number): Promise<void>;
}

/** The `value` of changed() that any object of the feed matches. Label values cannot hold it. */
export const ANY = '*';

/** Waits `ms`, or less when `lists` can tell that the object changed first. */
export function untilChanged(lists: SharedLists, kind: NamespacedKind, namespace: string, label: string, value: string, ms: number): Promise<void> {
  return lists.changed ? lists.changed(kind, namespace, label, value, ms) : new Promise((resolve) => setTimeout(resolve, ms));
}
