// How reasons name objects and values, the same in every message.
import type { KubeObject } from '../../model/kube.js';

/** "TrainJob ml-jobs/dj-...": an object as the reasons name it. */
export function describeObject(kind: string, object: KubeObject | undefined): string {
  return `${kind} ${object?.metadata?.namespace ?? '?'}/${object?.metadata?.name ?? '?'}`;
}

/** A value as the reasons show it: JSON, or "absent". */
export const show = (value: unknown): string => (value === undefined ? 'absent' : JSON.stringify(value));

/** Compares strings by UTF-16 code units, the same in every locale (localeCompare is not). */
export const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
