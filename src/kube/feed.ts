// One feed of WatchedLists (watched-lists.ts): the objects of one kind, namespace and label,
// kept from a list and then a watch, indexed by label value.
import type { KubeObject } from '../model/kube.js';
import { keptOf } from './kept.js';
import type { NamespacedKind } from './objects.js';

export interface Feed {
  kind: NamespacedKind;
  namespace: string;
  label: string;
  state: 'starting' | 'watching' | 'down';
  /** The labelled objects by UID, and their UIDs by label value. */
  objects: Map<string, KubeObject>;
  byValue: Map<string, Set<string>>;
  resourceVersion: string;
  lastHeard: number;
  lastAsked: number;
  retryAt: number;
  stop?: AbortController;
  /** Whether a list has filled it once: a later list tells subscribers what changed meanwhile. */
  listed?: boolean;
  /** Bumped on every (re)start, so the callbacks of a watch that was replaced change nothing. */
  generation: number;
}

export const feedKey = (kind: NamespacedKind, namespace: string, label: string) =>
  [kind.group, kind.version, kind.plural, namespace, label].join('\0');

/** Who waits for a change of the feed's objects with this label value (or ANY). */
export const waiterKey = (feed: string, value: string) => `${feed}\0${value}`;

/** What a list of `label=value` would answer: the objects in name order. */
export function itemsOf(feed: Feed, value: string): KubeObject[] {
  const uids = feed.byValue.get(value);
  if (!uids) return [];
  return [...uids]
    .map((uid) => feed.objects.get(uid)!)
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

/** What a feed keeps of an object (kept.ts). (A subscriber hears the object as the API server sent it, not this copy.) */
const kept = (feed: Feed, object: KubeObject): KubeObject => keptOf(feed.kind)(object);

export function put(feed: Feed, object: KubeObject): void {
  putKept(feed, kept(feed, object));
}

/** put() of an object already kept (kept() of the API server's copy): a list's pages are kept as they come. */
export function putKept(feed: Feed, object: KubeObject): void {
  const uid = object.metadata?.uid;
  if (!uid) return;
  remove(feed, object);
  feed.objects.set(uid, object);
  const value = object.metadata?.labels?.[feed.label];
  if (value === undefined) return;
  const uids = feed.byValue.get(value) ?? new Set<string>();
  uids.add(uid);
  feed.byValue.set(value, uids);
}

export function remove(feed: Feed, object: KubeObject): void {
  const uid = object.metadata?.uid;
  if (!uid) return;
  const old = feed.objects.get(uid);
  if (!old) return;
  feed.objects.delete(uid);
  const value = old.metadata?.labels?.[feed.label];
  const uids = value === undefined ? undefined : feed.byValue.get(value);
  uids?.delete(uid);
  if (value !== undefined && uids?.size === 0) feed.byValue.delete(value);
}
