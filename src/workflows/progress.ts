// What an operator sees of a Start in flight: the `progress` query, the current details in the
// Temporal UI, and the DispatchStep search attribute, all fed from one place.
import { defineQuery, setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
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

export class ProgressReporter {
  private state: Progress = { step: 0, stepName: STEPS[0] };

  constructor(private readonly title: string) {
    setHandler(progressQuery, () => this.state);
    this.render();
  }

  /** Names the Start once validation has told us what it is. */
  identify(jobId: string, namespace: string, name: string): void {
    this.state = { ...this.state, trainJob: `${namespace}/${name}` };
    upsertSearchAttributes([
      { key: DispatchJobId, value: jobId },
      { key: DispatchTrainJob, value: name },
    ]);
  }

  enter(step: StepNumber, waitingFor: string): void {
    this.state = { ...this.state, step, stepName: STEPS[step], waitingFor };
    upsertSearchAttributes([{ key: DispatchStep, value: stepLabel(step) }]);
    this.render();
  }

  created(uid: string): void {
    this.state = { ...this.state, uid };
  }

  finish(outcome: string): void {
    this.state = { ...this.state, waitingFor: undefined };
    upsertSearchAttributes([{ key: DispatchStep, value: outcome }]);
    this.render(outcome);
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
    setCurrentDetails(lines.join('\n\n'));
  }
}
