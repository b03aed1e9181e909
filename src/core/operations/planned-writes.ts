// The vocabulary of the plans after Start (lifecycle-plans.ts, and the plans from before the
// operations became declarative, lifecycle-plans-prepatch.ts): what a plan is, a planned write (a
// JSON patch whose first operations test the object's UID and resourceVersion), the patch builders,
// and applyJsonPatch, which applies a patch as the API server does, for tests and fakes.
import type { KubeObject } from '../../model/kube.js';
import { Annotations } from '../../model/constants.js';
import type { LifecycleOperation } from '../../model/lifecycle-constants.js';
import type { JsonPatchOp, TrainJobState } from '../../model/lifecycle.js';
import { deepEqual } from '../objects/deep-equal.js';
import { describeObject } from './phase.js';
import { gatesOf } from '../start/workload.js';

export type LifecycleOp = 'open' | 'hold' | 'release';

/** Each operation as its reasons name it. */
export const OP_NAMES: Record<LifecycleOperation, string> = {
  open: 'Open',
  hold: 'Hold',
  release: 'Release',
  stop: 'Stop',
  watch: 'Watch',
};

/** One write: a JSON patch (`application/json-patch+json`) of one object, preconditions first. */
export interface PlannedWrite {
  kind: 'TrainJob' | 'Workload' | 'AdmissionCheck';
  /** Absent for a cluster-scoped object (the AdmissionCheck). */
  namespace?: string;
  name: string;
  uid: string;
  /** `status` when the patch goes to the status subresource. */
  subresource?: 'status';
  patch: JsonPatchOp[];
  /** What the write does, for logs and the UI. */
  summary: string;
}

export type LifecyclePlan =
  /** ErrRejected: the operation cannot apply to what was read. Nothing is written. `state`: the phase read, when a TrainJob was. */
  | { kind: 'refuse'; reasons: string[]; state?: TrainJobState }
  /** The TrainJob is gone (or being deleted): answer Absent, not an error. */
  | { kind: 'absent'; state: TrainJobState }
  /** Already as the operation wants it: answer the state. */
  | { kind: 'done'; state: TrainJobState }
  /** Make these writes in order, then read and plan again. `state` is the state as read. */
  | { kind: 'write'; writes: PlannedWrite[]; state: TrainJobState }
  /** Nothing can be written yet (Kueue has not made the Workload): read and plan again later. */
  | { kind: 'wait'; reasons: string[]; state: TrainJobState };

// ---- JSON patches (RFC 6901 pointers, RFC 6902 operations)

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

/** Takes `gate` out of admission-gated-by, keeping the other gates in order; the annotation goes when none is left. */
export function removeGateOp(trainJob: KubeObject, gate: string): JsonPatchOp {
  const rest = gatesOf(trainJob.metadata?.annotations?.[Annotations.kueueAdmissionGatedBy]).filter(
    (g) => g !== gate,
  );
  return rest.length === 0
    ? removeAnnotation(Annotations.kueueAdmissionGatedBy)
    : {
        op: 'replace',
        path: pointer('metadata', 'annotations', Annotations.kueueAdmissionGatedBy),
        value: rest.join(','),
      };
}

function write(
  kind: PlannedWrite['kind'],
  object: KubeObject,
  ops: JsonPatchOp[],
  summary: string,
): PlannedWrite {
  const meta = object.metadata ?? {};
  return {
    kind,
    ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    patch: [...preconditions(object), ...ops],
    summary: `${describeObject(kind, object)}: ${summary}`,
  };
}

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


export interface PlanOptions {
  /** This run of the operation has already made writes (its workflow history says so). */
  resumed?: boolean;
}

export const writesOrDone = (writes: PlannedWrite[], state: TrainJobState): LifecyclePlan =>
  writes.length === 0 ? { kind: 'done', state } : { kind: 'write', writes, state };

/** A change to one object: the patch operation, and what it does. */
export interface Change {
  op: JsonPatchOp;
  summary: string;
}

/** One write of the changes to an object, or none when there are none. */
export const writeOf = (kind: PlannedWrite['kind'], object: KubeObject, changes: Change[]): PlannedWrite[] =>
  changes.length === 0
    ? []
    : [
        write(
          kind,
          object,
          changes.map((c) => c.op),
          changes.map((c) => c.summary).join(', '),
        ),
      ];
