// A planned write: one JSON patch (`application/json-patch+json`) of one object, whose first
// operations test the object's UID and resourceVersion, so it applies to what was read or not at all.
// The operations' plans and the admission check controller decide them; the shell only sends them.
import type { KubeObject } from '../../model/kube.js';
import type { JsonPatchOp } from '../../model/kube.js';
import { describeObject } from './describe.js';
import { preconditions } from './json-patch.js';

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

/** A change to one object: the patch operation, and what it does. */
export interface Change {
  op: JsonPatchOp;
  summary: string;
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
