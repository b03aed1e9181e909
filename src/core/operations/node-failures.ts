// The exit code of a Failed job (docs/contract.md §9): that of the first `node` container of the
// job's pods that terminated non-zero. The rule on its own, so that a Watch's list of the pods
// (watch-outcome.ts) and a worker's memory of a worker cluster's pods (src/worker/exit-code-memory.ts,
// docs/multikueue.md) pick the same container from what each saw.
import { Labels, Trainer } from '../../model/constants.js';
import type { ContainerTerminated, KubeObject, Pod } from '../../model/kube.js';
import { byteOrder } from '../objects/describe.js';

/** One `node` container run that terminated non-zero: the pod's name, its exit code, when it finished (RFC 3339, when known). */
export interface NodeFailure {
  pod: string;
  exitCode: number;
  finishedAt?: string;
}

/** The job an object belongs to (docs/contract.md §4): its job-id and submission labels. */
export interface JobKey {
  jobId: string;
  submission: string;
}

/** The job-id and submission labels of an object (a TrainJob, a pod); undefined without both. */
export function jobKeyOf(object: KubeObject | undefined): JobKey | undefined {
  const labels = object?.metadata?.labels ?? {};
  const jobId = labels[Labels.jobId];
  const submission = labels[Labels.submission];
  return jobId === undefined || submission === undefined ? undefined : { jobId, submission };
}

/** The non-zero terminations of a pod's `node` containers, its earlier runs (lastState) included; labels not checked. */
export function nodeFailuresOfPod(pod: Pod): NodeFailure[] {
  const statuses = Array.isArray(pod.status?.containerStatuses) ? pod.status.containerStatuses : [];
  return statuses
    .filter((c) => c?.name === Trainer.nodeContainer)
    .flatMap((c) => [c.state?.terminated, c.lastState?.terminated])
    .filter((t): t is ContainerTerminated => Number.isInteger(t?.exitCode) && t?.exitCode !== 0)
    .map((t) => ({ pod: pod.metadata?.name ?? '', exitCode: t.exitCode, ...(typeof t.finishedAt === 'string' ? { finishedAt: t.finishedAt } : {}) }));
}

/**
 * The order of failures: the earliest finishedAt first (one without comes last), then the pod's
 * name, both in byte order, not the locale's, so that every worker picks alike; then the exit code,
 * so that the order is total. Kubernetes writes these times to the second, as RFC 3339 in UTC,
 * whose byte order is their time order (src/kube gives a typed list's Dates back in that form), so
 * ties are common.
 */
export function compareFailures(a: NodeFailure, b: NodeFailure): number {
  const at = (f: NodeFailure) => f.finishedAt ?? '\uffff';
  return byteOrder(at(a), at(b)) || byteOrder(a.pod, b.pod) || a.exitCode - b.exitCode;
}

/** The first of `failures` in that order. */
export function firstFailure(failures: readonly NodeFailure[]): NodeFailure | undefined {
  let first: NodeFailure | undefined;
  for (const failure of failures) if (first === undefined || compareFailures(failure, first) < 0) first = failure;
  return first;
}

/** The failures of the pods that carry `job`'s job-id and submission labels. */
export function nodeFailuresOf(job: JobKey, pods: readonly Pod[]): NodeFailure[] {
  return pods
    .filter((p) => {
      const key = jobKeyOf(p);
      return key?.jobId === job.jobId && key.submission === job.submission;
    })
    .flatMap(nodeFailuresOfPod);
}

/**
 * What a memory of a cluster's pods keeps of one pod: its job and its failures, or nothing. A pod
 * being deleted (a deletionTimestamp) counts for nothing: its containers end because it is
 * deleted (Hold's eviction, Stop, MultiKueue's removal of a finished job), not of themselves, and
 * a memory would keep such an end past the pod, ahead of the failure of a later run of the same
 * submission. A container that failed of itself did so before its pod was deleted, and was seen
 * so unless the watch was away at that moment.
 */
export function failuresToRemember(pod: Pod): { job: JobKey; failures: NodeFailure[] } | undefined {
  const deleting = pod.metadata?.deletionTimestamp;
  if (deleting !== undefined && deleting !== null) return undefined;
  const job = jobKeyOf(pod);
  if (job === undefined) return undefined;
  const failures = nodeFailuresOfPod(pod);
  return failures.length === 0 ? undefined : { job, failures };
}

/** What a worker remembers of the worker clusters' pods (src/worker/exit-code-memory.ts): a job's first failure seen there. */
export interface RememberedFailures {
  failureOf(cluster: string, job: JobKey): NodeFailure | undefined;
}
