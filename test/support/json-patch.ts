// RFC 6902 applied as the API server applies a JSON patch, for tests and fakes to see what a
// planned write does to an object.
import { deepEqual } from '../../src/core/objects/deep-equal.js';
import type { JsonPatchOp } from '../../src/model/kube.js';

export class JsonPatchError extends Error {}

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new JsonPatchError(`not a JSON pointer: ${JSON.stringify(path)}`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The container holding the pointer's last segment, and that segment. */
function locate(doc: unknown, path: string): { parent: unknown; key: string } {
  const segments = parsePointer(path);
  const key = segments.pop();
  if (key === undefined) throw new JsonPatchError('the whole document cannot be patched here');
  let parent: unknown = doc;
  for (const segment of segments) {
    parent =
      typeof parent === 'object' && parent !== null
        ? (parent as Record<string, unknown>)[segment]
        : undefined;
    if (parent === undefined) throw new JsonPatchError(`${path}: ${segment} is missing`);
  }
  if (typeof parent !== 'object' || parent === null)
    throw new JsonPatchError(`${path}: the parent is not an object or array`);
  return { parent, key };
}

function arrayIndex(array: unknown[], key: string, path: string, forAdd: boolean): number {
  if (forAdd && key === '-') return array.length;
  const index = /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : NaN;
  if (!(index < array.length + (forAdd ? 1 : 0))) throw new JsonPatchError(`${path}: no index ${key}`);
  return index;
}

/**
 * The object after a JSON patch, as the API server applies one (RFC 6902: `add` on an existing
 * member replaces it); throws JsonPatchError when a `test` fails or a path is missing, and the
 * object is then unchanged. Pure: the input is copied first. Tests and fakes use it to see what a
 * plan's writes do.
 */
export function applyJsonPatch<T>(object: T, ops: readonly JsonPatchOp[]): T {
  const doc = JSON.parse(JSON.stringify(object)) as T;
  for (const op of ops) {
    const { parent, key } = locate(doc, op.path);
    const isArray = Array.isArray(parent);
    const record = parent as Record<string, unknown>;
    const exists = isArray
      ? /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < parent.length
      : Object.hasOwn(record, key);
    if (op.op === 'test') {
      if (!exists || !deepEqual(record[key], op.value)) throw new JsonPatchError(`${op.path}: test failed`);
    } else if (op.op === 'add') {
      if (isArray) parent.splice(arrayIndex(parent, key, op.path, true), 0, op.value);
      else record[key] = op.value;
    } else {
      if (!exists) throw new JsonPatchError(`${op.path}: missing`);
      if (op.op === 'replace') {
        record[key] = op.value;
      } else if (isArray) {
        parent.splice(arrayIndex(parent, key, op.path, false), 1);
      } else {
        delete record[key];
      }
    }
  }
  return doc;
}
