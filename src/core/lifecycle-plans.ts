// Open, Hold and Release (docs/contract.md §9) as decisions: from the objects as read, either a
// refusal (ErrRejected), Absent, nothing to do (already as wanted), a wait, or the exact writes to
// make, in order, each a JSON patch whose first operations test the object's UID and
// resourceVersion. The workflow reads, plans, makes the writes in order, and reads and plans
// again, with `resumed: true` once it has written, until the plan is no longer `write` or `wait`;
// a failed test (another writer came first) is the same: read and plan again. The plans remember
// nothing, so a second worker, or an operation interrupted between two writes, finishes the same way.
//
// `resumed` is the one thing a plan is told about the past, and it comes from the workflow's own
// history: once a run has written, a TrainJob that is no longer held (Release) or has ended since
// is the answer, not a refusal. A new run of Release on a TrainJob that an earlier run released
// is refused (not held), as docs/contract.md §9 says.
//
// The writes, by mode:
// - Open: plain, spec.suspend false; Kueue, dispatch's gate out of admission-gated-by (the
//   annotation goes when no gate is left; the Workload's copy is Kueue's, never touched).
// - Hold: plain, spec.suspend true and held "true" in one patch; Kueue, held "true" on the
//   TrainJob, then the Workload's spec.active false.
// - Release: plain, spec.suspend false and held removed in one patch; Kueue, held removed, then
//   the Workload's spec.active true.
//
// Decisions docs/contract.md §9 leaves open, made here:
// - Open of a held TrainJob: Kueue mode removes the gate (the inactive Workload still holds it);
//   plain mode has nothing it could write without running it, so nothing to do (Release opens it).
// - Hold in Kueue mode with no Workload yet writes the held annotation, then waits for Kueue to
//   make the Workload (`wait`): the held annotation alone keeps dispatch's check Pending, but only
//   an inactive Workload keeps Kueue from reserving quota for it.
// - Release of a Kueue Workload made inactive by someone else (`kueuectl stop workload`) reactivates
//   it; one Kueue deactivated itself (held meanwhile) is left inactive, and the TrainJob then reads Failed.
// - A ref of another namespace than the configured one is refused: dispatch works in that one only.
import type { KubeObject, TrainJob } from '../model/kube.js';
import { Annotations } from '../model/constants.js';
import { LifecycleAnnotations, LifecycleAnnotationValues, type LifecycleOperation } from '../model/lifecycle-constants.js';
import type { JsonPatchOp, TrainJobRef, TrainJobState } from '../model/lifecycle.js';
import { deepEqual } from './deep-equal.js';
import {
  describeObject,
  dispatchLabelProblems,
  hasGate,
  isHeldMarked,
  isSuspended,
  isWorkloadInactive,
  observedWorkload,
  kueueDeactivation,
  stateOf,
  type Observed,
} from './phase.js';
import { gatesOf } from './workload.js';

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
  /** ErrRejected: the operation cannot apply to what was read. Nothing is written. */
  | { kind: 'refuse'; reasons: string[] }
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

const setSpec = (object: KubeObject, field: string, value: unknown) => setField(object, 'spec', field, value);
const setAnnotation = (object: KubeObject, key: string, value: string) =>
  setField(object, 'metadata', key, value, 'annotations');
const removeAnnotation = (key: string): JsonPatchOp => ({
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

// ---- The plans

/**
 * Why the operation may not touch what was read (ErrRejected): a ref of another namespace, a
 * TrainJob of another UID, name or namespace, or without dispatch's labels. Empty when it may.
 */
export function identityRefusals(op: LifecycleOperation, ref: TrainJobRef, observed: Observed): string[] {
  const head = `${OP_NAMES[op]} of TrainJob ${ref.namespace}/${ref.name}`;
  const reasons: string[] = [];
  if (ref.namespace !== observed.config.namespace) {
    reasons.push(`${head}: dispatch works in namespace ${observed.config.namespace} only`);
  }
  const trainJob = observed.trainJob;
  if (trainJob === undefined) return reasons;
  const meta = trainJob.metadata ?? {};
  if (meta.uid !== ref.uid) {
    reasons.push(`${head}: the TrainJob of that name has UID ${meta.uid ?? 'absent'}, not ${ref.uid}`);
  }
  if (meta.namespace !== ref.namespace || meta.name !== ref.name) {
    reasons.push(`${head}: the TrainJob read is ${describeObject('TrainJob', trainJob)}`);
  }
  return [...reasons, ...dispatchLabelProblems(trainJob).map((p) => `${head}: ${p}`)];
}

export interface PlanOptions {
  /** This run of the operation has already made writes (its workflow history says so). */
  resumed?: boolean;
}

type Decide = (trainJob: TrainJob, observed: Observed, state: TrainJobState) => LifecyclePlan;

/** The part every operation shares: identity, Absent, and no change to a TrainJob that has ended. */
function plan(
  op: LifecycleOp,
  ref: TrainJobRef,
  observed: Observed,
  options: PlanOptions,
  decide: Decide,
): LifecyclePlan {
  const refusals = identityRefusals(op, ref, observed);
  if (refusals.length > 0) return { kind: 'refuse', reasons: refusals };
  const state = stateOf(ref, observed);
  const trainJob = observed.trainJob;
  if (trainJob === undefined || state.phase === 'Absent') return { kind: 'absent', state };
  if (state.phase === 'Succeeded' || state.phase === 'Failed') {
    if (options.resumed === true) return { kind: 'done', state };
    return {
      kind: 'refuse',
      reasons: [
        `${OP_NAMES[op]} of ${describeObject('TrainJob', trainJob)}: it has ${state.phase}`,
        ...state.reasons,
      ],
    };
  }
  return decide(trainJob, observed, state);
}

const writesOrDone = (writes: PlannedWrite[], state: TrainJobState): LifecyclePlan =>
  writes.length === 0 ? { kind: 'done', state } : { kind: 'write', writes, state };

/** A change to one object: the patch operation, and what it does. */
interface Change {
  op: JsonPatchOp;
  summary: string;
}

/** One write of the changes to an object, or none when there are none. */
const writeOf = (kind: PlannedWrite['kind'], object: KubeObject, changes: Change[]): PlannedWrite[] =>
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

/** Open: plain, spec.suspend false; Kueue, dispatch's gate out of admission-gated-by. */
export function planOpen(ref: TrainJobRef, observed: Observed, options: PlanOptions = {}): LifecyclePlan {
  return plan('open', ref, observed, options, (trainJob, { config }, state) => {
    const gate = config.kueue.gate;
    if (config.mode === 'kueue') {
      const ungate: Change[] = hasGate(trainJob, gate)
        ? [
            {
              op: removeGateOp(trainJob, gate),
              summary: `remove ${gate} from ${Annotations.kueueAdmissionGatedBy}`,
            },
          ]
        : [];
      return writesOrDone(writeOf('TrainJob', trainJob, ungate), state);
    }
    // Plain: only a Gated TrainJob is opened; a held one opens at its Release.
    const open: Change[] =
      state.phase === 'Gated'
        ? [{ op: setSpec(trainJob, 'suspend', false), summary: 'spec.suspend false' }]
        : [];
    return writesOrDone(writeOf('TrainJob', trainJob, open), state);
  });
}

/** Hold: plain, spec.suspend true and held "true" in one patch; Kueue, held "true", then the Workload inactive. */
export function planHold(ref: TrainJobRef, observed: Observed, options: PlanOptions = {}): LifecyclePlan {
  return plan('hold', ref, observed, options, (trainJob, obs, state) => {
    const mark: Change[] = isHeldMarked(trainJob)
      ? []
      : [
          {
            op: setAnnotation(trainJob, LifecycleAnnotations.held, LifecycleAnnotationValues.held),
            summary: `annotation ${LifecycleAnnotations.held}: "${LifecycleAnnotationValues.held}"`,
          },
        ];
    if (obs.config.mode === 'plain') {
      const suspend: Change[] = isSuspended(trainJob)
        ? []
        : [{ op: setSpec(trainJob, 'suspend', true), summary: 'spec.suspend true' }];
      return writesOrDone(writeOf('TrainJob', trainJob, [...suspend, ...mark]), state);
    }
    const writes = writeOf('TrainJob', trainJob, mark);
    const { workload } = observedWorkload(obs);
    if (workload === undefined) {
      return writes.length > 0
        ? { kind: 'write', writes, state }
        : {
            kind: 'wait',
            reasons: ['no Workload of this TrainJob yet: Kueue makes it; its spec.active is set false then'],
            state,
          };
    }
    if (!isWorkloadInactive(workload)) {
      writes.push(
        ...writeOf('Workload', workload, [
          { op: setSpec(workload, 'active', false), summary: 'spec.active false' },
        ]),
      );
    }
    return writesOrDone(writes, state);
  });
}

/** Release: plain, spec.suspend false and held removed in one patch; Kueue, held removed, then the Workload active. */
export function planRelease(ref: TrainJobRef, observed: Observed, options: PlanOptions = {}): LifecyclePlan {
  return plan('release', ref, observed, options, (trainJob, obs, state) => {
    if (state.phase !== 'Held') {
      if (options.resumed === true) return { kind: 'done', state };
      return {
        kind: 'refuse',
        reasons: [
          `Release of ${describeObject('TrainJob', trainJob)}: it is not held (it is ${state.phase})`,
          ...state.reasons,
        ],
      };
    }
    const unmark: Change[] = Object.hasOwn(trainJob.metadata.annotations ?? {}, LifecycleAnnotations.held)
      ? [
          {
            op: removeAnnotation(LifecycleAnnotations.held),
            summary: `remove annotation ${LifecycleAnnotations.held}`,
          },
        ]
      : [];
    if (obs.config.mode === 'plain') {
      const resume: Change[] = isSuspended(trainJob)
        ? [{ op: setSpec(trainJob, 'suspend', false), summary: 'spec.suspend false' }]
        : [];
      return writesOrDone(writeOf('TrainJob', trainJob, [...resume, ...unmark]), state);
    }
    const writes = writeOf('TrainJob', trainJob, unmark);
    const { workload } = observedWorkload(obs);
    // A Workload Kueue deactivated itself stays so: Release lifts dispatch's hold, not Kueue's decision.
    if (workload !== undefined && isWorkloadInactive(workload) && kueueDeactivation(workload) === undefined) {
      writes.push(
        ...writeOf('Workload', workload, [
          { op: setSpec(workload, 'active', true), summary: 'spec.active true' },
        ]),
      );
    }
    return writesOrDone(writes, state);
  });
}

/** The plan of an operation by its name. */
export function planOperation(
  op: LifecycleOp,
  ref: TrainJobRef,
  observed: Observed,
  options: PlanOptions = {},
): LifecyclePlan {
  return { open: planOpen, hold: planHold, release: planRelease }[op](ref, observed, options);
}
