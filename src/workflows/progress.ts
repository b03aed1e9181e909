// What an operator sees of a Start in flight: the `progress` query, the current details in the
// Temporal UI, and the DispatchStep search attribute, all fed from one place.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { defineQuery, deprecatePatch, setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { ONE_UPSERT_PER_TASK, PROGRESS_QUERY } from '../contract/names.js';
import { DispatchJobId, DispatchStep, DispatchTrainJob } from '../contract/search-attributes.js';
import type { TaskEnd } from './activity-proxies.js';
import { STAGES, stageLabel, stepOf, type Stage, type StepNumber } from '../core/start/steps.js';

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

export const progressQuery = defineQuery<Progress>(PROGRESS_QUERY);

export class ProgressReporter {
  private state: Progress = { step: stepOf('validate'), stepName: STAGES.validate.label };
  private stage: Stage = 'validate';
  /**
   * Search attribute updates not sent yet, by key (the last value wins): updates made with no await
   * between them go out as one UpsertWorkflowSearchAttributes command when the workflow next
   * waits, so that identify and steps 1 and 2 cost one event and one visibility write, not three.
   */
  private pending: Map<string, SearchAttributeUpdatePair> | undefined;

  constructor(private title: string) {
    // ONE_UPSERT_PER_TASK, retired (step 2, docs/versioning.md): the updates wait for flush(), which
    // the calls that end a workflow task make (activity-proxies.ts). Its deprecated marker goes where
    // patched() asked, in the first activation, before any upsert; the Starts recorded with an
    // upsert after each local activity replay against the build recorded before (test/histories/builds.json).
    deprecatePatch(ONE_UPSERT_PER_TASK);
    setHandler(progressQuery, () => this.state);
    this.render();
  }

  /**
   * Names the Start once validation has told us what it is. The summary heads the current details,
   * so that a Start begun without a static summary (the temporal CLI, a Go client) says what it is.
   */
  identify(jobId: string, namespace: string, name: string, summary?: string): void {
    this.state = { ...this.state, trainJob: `${namespace}/${name}` };
    if (summary) this.title = summary;
    this.upsert([
      { key: DispatchJobId, value: jobId },
      { key: DispatchTrainJob, value: name },
    ]);
  }

  enter(stage: Stage, waitingFor: string): void {
    this.stage = stage;
    this.state = { ...this.state, step: stepOf(stage), stepName: STAGES[stage].label, waitingFor };
    this.upsert([{ key: DispatchStep, value: stageLabel(stage) }]);
    this.render();
  }

  /** What the Start's calls flush before the workflow task ends (activitiesFor). */
  get taskEnd(): TaskEnd {
    return this;
  }

  /** The step the Start is at, or stopped at. */
  get step(): StepNumber {
    return this.state.step;
  }

  /** What the Start is doing, or stopped doing, as an operator reads it ("4 validate request"). */
  get label(): string {
    return stageLabel(this.stage);
  }

  created(uid: string): void {
    this.state = { ...this.state, uid };
  }

  finish(outcome: string): void {
    this.state = { ...this.state, waitingFor: undefined };
    this.upsert([{ key: DispatchStep, value: outcome }]);
    this.flush();
    this.render(outcome);
  }

  private upsert(pairs: SearchAttributeUpdatePair[]): void {
    this.pending ??= new Map();
    for (const pair of pairs) this.pending.set(pair.key.name, pair);
  }

  /**
   * Sends the updates not sent yet as one upsert: called just before the workflow waits on what
   * ends its workflow task, so the step it waits at is visible meanwhile.
   */
  flush(): void {
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
    // One Markdown paragraph with hard breaks: the UI sizes its details frame by lines, without
    // paragraph margins, so separate paragraphs would cut the last line off. A last, blank line
    // leaves room for the summary, which wraps on a narrow screen.
    setCurrentDetails([...lines, '\u00a0'].join('  \n'));
  }
}
