// Watch's outcome (docs/contract.md §9): once the TrainJob has ended, its phase with the deciding
// condition's reason, message and time, and for a failure the exit code of its first failed node.
import { Labels, Trainer } from '../../model/constants.js';
import type { TrainJob } from '../../model/kube.js';
import { OutcomeReasons } from '../../model/constants.js';
import type { Outcome, TrainJobRef } from '../../model/operations.js';
import type { ContainerTerminated, Pod } from '../../model/kube.js';
import { byteOrder } from '../objects/describe.js';
import { clusterOf, type Observed } from './observed.js';
import { stateOf } from './phase.js';
import { terminalOf } from './terminal.js';

interface Termination {
  pod: string;
  terminated: ContainerTerminated;
}

/**
 * The exit code of the first `node` container, among the TrainJob's pods (its job-id and
 * submission labels, docs/contract.md §4), that terminated non-zero: the earliest by finishedAt
 * (one without comes last), then by pod name. A container's earlier run (lastState) counts too.
 */
export function exitCodeOf(trainJob: TrainJob, pods: readonly Pod[]): number | undefined {
  const labels = trainJob.metadata?.labels ?? {};
  const jobId = labels[Labels.jobId];
  const submission = labels[Labels.submission];
  if (jobId === undefined || submission === undefined) return undefined;
  const ended: Termination[] = pods
    .filter(
      (p) =>
        p.metadata?.labels?.[Labels.jobId] === jobId &&
        p.metadata?.labels?.[Labels.submission] === submission,
    )
    .flatMap((p) =>
      (Array.isArray(p.status?.containerStatuses) ? p.status.containerStatuses : [])
        .filter((c) => c?.name === Trainer.nodeContainer)
        .flatMap((c) => [c.state?.terminated, c.lastState?.terminated])
        .filter((t): t is ContainerTerminated => Number.isInteger(t?.exitCode) && t?.exitCode !== 0)
        .map((terminated) => ({ pod: p.metadata?.name ?? '', terminated })),
    );
  const key = (t: Termination) => t.terminated.finishedAt ?? '\uffff';
  // Byte order, not the locale's: every worker sorts alike. Kubernetes writes these times to the second.
  ended.sort((a, b) => byteOrder(key(a), key(b)) || byteOrder(a.pod, b.pod));
  return ended[0]?.terminated.exitCode;
}

export interface WatchObservation extends Observed {
  /** The pods listed by the TrainJob's job-id label. */
  pods: readonly Pod[];
  /** When this was read (RFC 3339): an Absent outcome's finishedAt, and that of a condition without a time. */
  observedAt: string;
}

/**
 * Watch's answer once the TrainJob has ended (the phases Succeeded, Failed, Absent of phaseOf,
 * with the deciding condition's reason, message and time), or undefined while it has not. The
 * exit code is given for Failed only.
 */
export function watchOutcome(ref: TrainJobRef, observation: WatchObservation): Outcome | undefined {
  const state = stateOf(ref, observation);
  if (state.phase === 'Absent') {
    return {
      ref,
      phase: 'Absent',
      reason: OutcomeReasons.absent,
      message: state.reasons.join('; '),
      finishedAt: observation.observedAt,
      ...clusterOf(observation),
    };
  }
  const terminal = terminalOf(observation);
  if (terminal === undefined || observation.trainJob === undefined) return undefined;
  const exitCode =
    terminal.phase === 'Failed' ? exitCodeOf(observation.trainJob, observation.pods) : undefined;
  return {
    ref,
    phase: terminal.phase,
    reason: terminal.reason,
    message: terminal.message,
    ...(exitCode !== undefined ? { exitCode } : {}),
    finishedAt: terminal.at ?? observation.observedAt,
    ...clusterOf(observation),
  };
}
