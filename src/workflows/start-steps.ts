// The one runner of Start's calls (steps 2 and 5 to 9): each step is entered in its turn and makes
// its call through runStep, unless a fold of its call with the one before or after it (folded-steps.ts)
// answered already, in which case it is only entered; a step the fold stopped at goes on with the
// rest of its retry. runStart reads as the steps; the folds are resumed here.
import { DispatchError } from '../model/errors.js';
import type { TrainJobRef } from '../model/operations.js';
import { STAGES, type CallStep } from '../core/start/steps.js';
import type { StartActivities } from './activity-proxies.js';
import type { FoldAnswers } from './folded-steps.js';
import type { ProgressReporter } from './progress.js';
import { runStep } from './run-step.js';

/** The calls a step makes, whole or, after a fold's first attempt, the rest of their retry. */
export type StepCalls = Pick<StartActivities, 'readRuntime' | 'createRuntimeCopy' | 'createTrainJob' | 'setOwner' | 'readBack' | 'waitForWorkload'>;

export class StartSteps {
  private fold: FoldAnswers = { answered: {} };

  constructor(
    private readonly progress: ProgressReporter,
    private readonly acts: StartActivities,
  ) {}

  /** What a fold's first attempt answered: the next steps read it before they call. */
  folded(answers: FoldAnswers): void {
    this.fold = answers;
  }

  /**
   * Runs a step: entered, with the fold's answer when it had one; else, when the fold stopped at
   * this step, the rest of its retry (or, when CallBound leaves none, the step's unanswered
   * failure); else its whole call. `call` makes the step's call with the calls it is given.
   */
  async run<T>(step: CallStep, waitingFor: string, call: (calls: StepCalls) => Promise<T>, ref?: TrainJobRef): Promise<T> {
    const answered = (this.fold.answered as Partial<Record<CallStep, { value: unknown }>>)[step];
    if (answered) {
      this.progress.enter(step, waitingFor);
      return answered.value as T;
    }
    const { stopped } = this.fold;
    // The retried calls come with a TaskEnd (activitiesFor), which every Start's calls have.
    if (stopped?.step !== step || !this.acts.retried) return runStep(this.progress, step, waitingFor, () => call(this.acts), ref);
    if (!this.acts.retriesAfterFirst) {
      this.progress.enter(step, waitingFor);
      throw new DispatchError(STAGES[step].unanswered!, [`waiting for ${waitingFor}: ${stopped.reason}`], step, ref);
    }
    const retried = { ...this.acts, ...this.acts.retried };
    return runStep(this.progress, step, waitingFor, () => call(retried), ref);
  }
}
