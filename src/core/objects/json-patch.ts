// Building JSON patches (RFC 6901 pointers, RFC 6902 operations) of Kubernetes objects.
import type { KubeObject } from '../../model/kube.js';
import type { JsonPatchOp } from '../../model/kube.js';

/** A JSON pointer of the segments, each escaped (`~` as `~0`, `/` as `~1`). */
export function pointer(...segments: (string | number)[]): string {
  return segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** `test` operations on the object's UID and resourceVersion: the patch applies to what was read, or not at all. */
export function preconditions(object: KubeObject): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [
    { op: 'test', path: pointer('metadata', 'uid'), value: object.metadata?.uid ?? '' },
  ];
  const rv = object.metadata?.resourceVersion;
  if (rv !== undefined) ops.push({ op: 'test', path: pointer('metadata', 'resourceVersion'), value: rv });
  return ops;
}

/** Sets `<section>.<field>`: `replace` when it is there, `add` when not, the section too when it is missing. */
function setField(
  object: KubeObject,
  section: 'spec' | 'metadata',
  field: string,
  value: unknown,
  parent?: string,
): JsonPatchOp {
  const holder =
    parent === undefined
      ? object[section]
      : (object[section] as Record<string, unknown> | undefined)?.[parent];
  const path = parent === undefined ? [section] : [section, parent];
  if (typeof holder !== 'object' || holder === null) {
    return { op: 'add', path: pointer(...path), value: { [field]: value } };
  }
  return { op: Object.hasOwn(holder, field) ? 'replace' : 'add', path: pointer(...path, field), value };
}

export const setSpec = (object: KubeObject, field: string, value: unknown) => setField(object, 'spec', field, value);
export const setAnnotation = (object: KubeObject, key: string, value: string) =>
  setField(object, 'metadata', key, value, 'annotations');
export const removeAnnotation = (key: string): JsonPatchOp => ({
  op: 'remove',
  path: pointer('metadata', 'annotations', key),
});
