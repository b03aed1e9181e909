// What an operator sees of an operation after Start (Open, Hold, Release, Stop, Watch) in flight:
// the `progress` query, the current details in the Temporal UI, and the search attributes
// DispatchTrainJob and DispatchPhase, set as the phase is learnt (docs/contract.md §9).
import { defineQuery, isCancellation, setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { DispatchError } from '../model/errors.js';
import { PROGRESS_QUERY, type Operation } from '../contract/names.js';
import type { Phase, TrainJobRef } from '../model/operations.js';
import { DispatchPhase, DispatchTrainJob } from '../contract/search-attributes.js';
import { OPERATION_NAMES } from '../contract/names.js';
import { operationSummary } from '../contract/summaries.js';

export interface OperationProgress {
  operation: Operation;
  /** "<namespace>/<name>" once the ref is read. */
  trainJob?: string;
  uid?: string;
  phase?: Phase;
  /** What the operation is waiting for right now, in words. */
  waitingFor?: string;
  /** Why the phase is what it is, as last read. */
  reasons?: string[];
}

export const operationProgressQuery = defineQuery<OperationProgress>(PROGRESS_QUERY);

export class OperationReporter {
  private state: OperationProgress;
  private title: string;

  constructor(operation: Operation) {
    this.state = { operation };
    this.title = `${OPERATION_NAMES[operation]} TrainJob`;
    setHandler(operationProgressQuery, () => this.state);
    this.render();
  }

  /** Names the TrainJob: the summary heads the details, for callers that set no static summary. */
  identify(ref: TrainJobRef): void {
    this.state = { ...this.state, trainJob: `${ref.namespace}/${ref.name}`, uid: ref.uid };
    this.title = operationSummary(this.state.operation, ref);
    upsertSearchAttributes([{ key: DispatchTrainJob, value: ref.name }]);
    this.render();
  }

  /** The phase as read, and why; the search attribute changes only when the phase does. */
  observed(phase: Phase, reasons: readonly string[]): void {
    if (phase !== this.state.phase) upsertSearchAttributes([{ key: DispatchPhase, value: phase }]);
    this.state = { ...this.state, phase, reasons: [...reasons] };
    this.render();
  }

  waiting(waitingFor: string | undefined): void {
    this.state = { ...this.state, waitingFor };
    this.render();
  }

  finish(outcome: string): void {
    this.state = { ...this.state, waitingFor: undefined };
    this.render(outcome);
  }

  private render(outcome?: string): void {
    const { trainJob, uid, phase, waitingFor, reasons } = this.state;
    const lines = [
      `**${this.title}**`,
      ...(trainJob ? [`TrainJob: ${trainJob}${uid ? ` (uid ${uid})` : ''}`] : []),
      ...(phase ? [`Phase: ${phase}${reasons && reasons.length > 0 ? ` (${reasons[0]})` : ''}`] : []),
      ...(waitingFor ? [`Waiting for: ${waitingFor}`] : []),
      ...(outcome ? [`Outcome: ${outcome}`] : []),
    ];
    // One Markdown paragraph with hard breaks and a last blank line, as Start's (progress.ts).
    setCurrentDetails([...lines, '\u00a0'].join('  \n'));
  }
}

/** The outcome line of an operation that did not answer: its error type and first reason, or cancelled. */
export function endedBy(error: unknown): string {
  if (error instanceof DispatchError) return `${error.type}: ${error.reasons[0] ?? ''}`;
  return isCancellation(error) ? 'cancelled' : 'failed';
}
