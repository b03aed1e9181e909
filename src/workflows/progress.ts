// What an operator sees of a Start in flight: the `progress` query, the current details in the
// Temporal UI, and the DispatchStep search attribute, all fed from one place.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import {
  defineQuery,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { DispatchJobId, DispatchStep, DispatchTrainJob } from '../model/search-attributes.js';
import { STEPS, stepLabel, type StepNumber } from './steps.js';

export interface Progress {
  step: StepNumber;
  stepName: string;
  /** What the Start is waiting for right now, in words. */
  waitingFor?: string;
  /** "<namespace>/<name>" once known. */
  trainJob?: string;
  /** Set once the TrainJob exists. */
  uid?: string;
}

export const progressQuery = defineQuery<Progress>('progress');

/**
 * Patch (docs/versioning.md): search attribute updates made with no await between them go out as
 * one UpsertWorkflowSearchAttributes command when the workflow next waits, not one each. Without
 * it, identify and steps 1 and 2 cost three events and three visibility writes, and steps 3 and 5
 * two, of which only the last of each run was ever visible. Starts recorded before it replay
 * unpatched (test/histories/01-baseline).
 */
export const COALESCE_UPSERTS_PATCH = 'progress-coalesce-upserts';

export class ProgressReporter {
  private state: Progress = { step: 0, stepName: STEPS[0] };
  /** Updates not sent yet, by key (the last value wins); set only under the patch. */
  private pending: Map<string, SearchAttributeUpdatePair> | undefined;

  constructor(private readonly title: string) {
    setHandler(progressQuery, () => this.state);
    this.render();
  }

  /** Names the Start once validation has told us what it is. */
  identify(jobId: string, namespace: string, name: string): void {
    this.state = { ...this.state, trainJob: `${namespace}/${name}` };
    this.upsert([
      { key: DispatchJobId, value: jobId },
      { key: DispatchTrainJob, value: name },
    ]);
  }

  enter(step: StepNumber, waitingFor: string): void {
    this.state = { ...this.state, step, stepName: STEPS[step], waitingFor };
    this.upsert([{ key: DispatchStep, value: stepLabel(step) }]);
    this.render();
  }

  created(uid: string): void {
    this.state = { ...this.state, uid };
  }

  finish(outcome: string): void {
    this.state = { ...this.state, waitingFor: undefined };
    const final: SearchAttributeUpdatePair[] = [{ key: DispatchStep, value: outcome }];
    // With nothing pending both versions send the outcome at once, so no patch marker is needed.
    if (this.pending) {
      this.upsert(final);
      this.flush();
    } else upsertSearchAttributes(final);
    this.render(outcome);
  }

  private upsert(pairs: SearchAttributeUpdatePair[]): void {
    if (!this.pending && !patched(COALESCE_UPSERTS_PATCH)) {
      upsertSearchAttributes(pairs);
      return;
    }
    if (!this.pending) {
      this.pending = new Map();
      // A microtask runs once the workflow code waits, still within this workflow task.
      void Promise.resolve().then(() => this.flush());
    }
    for (const pair of pairs) this.pending.set(pair.key.name, pair);
  }

  private flush(): void {
    if (!this.pending) return;
    upsertSearchAttributes([...this.pending.values()]);
    this.pending = undefined;
  }

  private render(outcome?: string): void {
    const { step, stepName, waitingFor, trainJob, uid } = this.state;
    const lines = [
      `**${this.title}**`,
      `Step: ${step} of 9, ${stepName}`,
      ...(waitingFor ? [`Waiting for: ${waitingFor}`] : []),
      ...(trainJob ? [`TrainJob: ${trainJob}${uid ? ` (uid ${uid})` : ''}`] : []),
      ...(outcome ? [`Outcome: ${outcome}`] : []),
    ];
    // One Markdown paragraph with hard breaks: the UI sizes its details frame without paragraph
    // margins, so separate paragraphs would cut the last line off.
    setCurrentDetails(lines.join('  \n'));
  }
}
