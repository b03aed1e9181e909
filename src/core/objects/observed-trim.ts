// The parts of a TrainJob and a Workload that the decisions after Start read (operations/,
// admission/), and nothing else. Activities return objects trimmed so, as
// workflow histories record every activity result: a TrainJob as read carries its whole spec
// (several KB), its trimmed form a few hundred bytes, and the plans decide the same from either.
import type { ObjectMeta, TrainJob, Workload } from '../../model/kube.js';
import { isRecord } from './fields.js';

/** The fields of `from` named in `keys` that are present. */
function pick(from: unknown, keys: readonly string[]): Record<string, unknown> {
  if (!isRecord(from)) return {};
  return Object.fromEntries(keys.filter((k) => Object.hasOwn(from, k)).map((k) => [k, from[k]]));
}

const META_KEYS = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'labels', 'annotations', 'deletionTimestamp'] as const;

const trimMeta = (metadata: unknown): ObjectMeta => pick(metadata, META_KEYS) as ObjectMeta;

/** metadata, spec.suspend, status.conditions. */
export function trimTrainJob(trainJob: TrainJob): TrainJob {
  const status = pick(trainJob.status, ['conditions']);
  return {
    metadata: trimMeta(trainJob.metadata),
    spec: pick(trainJob.spec, ['suspend']) as TrainJob['spec'],
    ...(Object.keys(status).length > 0 ? { status } : {}),
  };
}

/** metadata, spec.active, status.conditions, status.admissionChecks and (MultiKueue) status.clusterName. */
export function trimWorkload(workload: Workload): Workload {
  const status = pick(workload.status, ['conditions', 'admissionChecks', 'clusterName']);
  return {
    metadata: trimMeta(workload.metadata),
    spec: pick(workload.spec, ['active']),
    ...(Object.keys(status).length > 0 ? { status } : {}),
  };
}
