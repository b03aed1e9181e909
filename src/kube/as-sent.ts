// Objects as the API server sends them. CoreV1Api's typed lists (pods) deserialize every time
// (metav1.Time) into a Date; a watch's events carry them as sent, RFC 3339 strings to the second,
// and the decisions compare them so (core/operations/node-failures.ts, in byte order, which for
// these strings is time order). So a typed list's answer is put back in that form before anything
// decides from it, and a pod reads the same from a list and from a watch.
const asTime = (date: Date): string => (Number.isNaN(date.getTime()) ? '' : date.toISOString().replace(/\.000Z$/, 'Z'));

export function asSent<T>(value: T): T {
  if (value instanceof Date) return asTime(value) as T;
  if (Array.isArray(value)) return value.map(asSent) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, asSent(v)])) as T;
}
