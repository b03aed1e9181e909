// Watch's outcome (docs/contract.md §9): once the TrainJob has ended, its phase with the deciding
// condition's reason, message and time, and for a failure the exit code of its first failed node.
import { OutcomeReasons } from '../../model/constants.js';
import type { Pod, TrainJob } from '../../model/kube.js';
import type { Outcome, TrainJobRef } from '../../model/operations.js';
import { firstFailure, jobKeyOf, nodeFailuresOf, type NodeFailure } from './node-failures.js';
import { clusterOf, type Observed } from './observed.js';
import { stateOf } from './phase.js';
import { terminalOf } from './terminal.js';

/**
 * The exit code of the first `node` container, among the TrainJob's pods (its job-id and
 * submission labels, docs/contract.md §4), that terminated non-zero: the earliest by finishedAt
 * (one without comes last), then by pod name (node-failures.ts). A container's earlier run
 * (lastState) counts too, and so do `known` failures of its pods seen before (a worker's memory of
 * a worker cluster's pods that are gone since, docs/multikueue.md).
 */
export function exitCodeOf(trainJob: TrainJob, pods: readonly Pod[], known: readonly NodeFailure[] = []): number | undefined {
  const job = jobKeyOf(trainJob);
  if (job === undefined) return undefined;
  return firstFailure([...nodeFailuresOf(job, pods), ...known])?.exitCode;
}

export interface WatchObservation extends Observed {
  /** The pods listed by the TrainJob's job-id label. */
  pods: readonly Pod[];
  /** Failures of the TrainJob's node containers seen before, in pods that may be gone (exitCodeOf's `known`). */
  remembered?: readonly NodeFailure[];
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
    terminal.phase === 'Failed' ? exitCodeOf(observation.trainJob, observation.pods, observation.remembered) : undefined;
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
