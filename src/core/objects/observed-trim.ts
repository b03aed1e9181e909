// The parts of a TrainJob and a Workload that the decisions after Start read (operations/,
// admission/), and nothing else. Activities return objects trimmed so, as
// workflow histories record every activity result: a TrainJob as read carries its whole spec
// (several KB), its trimmed form a few hundred bytes, and the plans decide the same from either.
import { Trainer } from '../../model/constants.js';
import type { ContainerStatus, KubeObject, ObjectMeta, Pod, TrainJob, Workload } from '../../model/kube.js';
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

/**
 * apiVersion, kind, metadata.name and status.conditions of a MultiKueueCluster: all a Watch or an
 * operation reads of it (operations/worker-cluster.ts, its Active condition). Its spec and
 * managedFields (1-2 KB) would only weigh down every result recorded in the workflow's history.
 */
export function trimMultiKueueCluster(cluster: KubeObject): KubeObject {
  const status = pick(cluster.status, ['conditions']);
  return {
    ...pick(cluster, ['apiVersion', 'kind']),
    metadata: pick(cluster.metadata, ['name']) as ObjectMeta,
    ...(Object.keys(status).length > 0 ? { status } : {}),
  };
}

/**
 * metadata and the `node` containers' name, state.terminated and lastState.terminated: what the
 * exit code is decided from (operations/node-failures.ts). A worker's feed of a worker cluster's
 * pods keeps this, a few hundred bytes, of each of a whole job's pods.
 */
export function trimPod(pod: Pod): Pod {
  const statuses = Array.isArray(pod.status?.containerStatuses) ? pod.status.containerStatuses : [];
  const containerStatuses = statuses
    .filter((c) => c?.name === Trainer.nodeContainer)
    .map((c): ContainerStatus => {
      const state = pick(c.state, ['terminated']);
      const lastState = pick(c.lastState, ['terminated']);
      return { name: c.name, ...(Object.keys(state).length > 0 ? { state } : {}), ...(Object.keys(lastState).length > 0 ? { lastState } : {}) };
    });
  return { metadata: trimMeta(pod.metadata), ...(containerStatuses.length > 0 ? { status: { containerStatuses } } : {}) };
}
