// The nine steps of Start as data (docs/start.md): what the progress query, the current details in
// the Temporal UI and the DispatchStep search attribute call each one, which activity runs it, the
// error type a call left unanswered until CallBound becomes, and what a failure there leaves to undo.
// Pure data: the workflows run the steps by it, the observability labels each call by it.
import type { ActivityType } from '../../contract/names.js';
import type { ErrorType } from '../../model/errors.js';

/**
 * What a Start must undo when it ends at this step:
 * - `nothing`: nothing exists yet, or what exists is kept on purpose (a failed TrainJob create
 *   keeps the copy for a retried Start of the same attempt, or its activity already deleted it);
 * - `if-cancelled`: only a cancellation, which may interrupt a call after it acted, leaves
 *   something behind to stop;
 * - `always`: the TrainJob exists; any failure or cancellation stops it.
 */
export type Undo = 'nothing' | 'if-cancelled' | 'always';

export interface Step {
  /** The step's name in docs/start.md, as an operator reads it. */
  label: string;
  /** The activity that makes the step's Kubernetes call, if it makes one. */
  activity?: ActivityType;
  /** The failure type of a call that stayed unanswered until CallBound (docs/errors.md). */
  unanswered?: ErrorType;
  undo: Undo;
}

export const STEPS = {
  1: { label: 'backend gates', undo: 'nothing' },
  2: { label: 'read runtime', activity: 'readRuntime', unanswered: 'ErrUnreachable', undo: 'nothing' },
  3: { label: 'check runtime', undo: 'nothing' },
  4: { label: 'render', undo: 'nothing' },
  5: { label: 'create runtime copy', activity: 'createRuntimeCopy', unanswered: 'ErrUnreachable', undo: 'if-cancelled' },
  6: { label: 'create TrainJob', activity: 'createTrainJob', unanswered: 'ErrOutcomeUnknown', undo: 'if-cancelled' },
  7: { label: 'set owner', activity: 'setOwner', unanswered: 'ErrRejected', undo: 'always' },
  8: { label: 'read-back', activity: 'readBack', unanswered: 'ErrRejected', undo: 'always' },
  9: { label: 'wait for Workload', activity: 'waitForWorkload', unanswered: 'ErrRejected', undo: 'always' },
} as const satisfies Record<number, Step>;

export type StepNumber = keyof typeof STEPS;

/**
 * Step 4's checks of the request and its spec (src/core/start/validate.ts), which Start runs first,
 * before the gates of step 1, with the settings: its refusals carry step 4, and so does what an
 * operator sees while it runs ("4 validate request").
 */
export const VALIDATE = { step: 4, label: 'validate request', activity: 'prepareStart', unanswered: 'ErrUnreachable', undo: 'nothing' } as const satisfies Step & { step: StepNumber };

/** What a Start is doing: one of the nine steps, or step 4's checks run first. */
export const STAGES = { validate: VALIDATE, ...STEPS } as const;

export type Stage = keyof typeof STAGES;

/** The step number a stage shows and its failures carry. */
export const stepOf = (stage: Stage): StepNumber => (stage === 'validate' ? VALIDATE.step : stage);

/** What an operator reads of a stage: "4 validate request", "5 create runtime copy". */
export const stageLabel = (stage: Stage): string => `${stepOf(stage)} ${STAGES[stage].label}`;

/** The stages that make a Kubernetes call through an activity. */
export type CallStep = { [P in Stage]: (typeof STAGES)[P] extends { activity: string } ? P : never }[Stage];

/** The activity of a call stage. */
export type ActivityOf<P extends CallStep> = (typeof STAGES)[P]['activity'];

const isStepNumber = (step: number): step is StepNumber => Object.hasOwn(STEPS, step);

/** What an operator reads: "5 create runtime copy" (a number that is no step: just the number). */
export const stepLabel = (step: number): string => (isStepNumber(step) ? `${step} ${STEPS[step].label}` : String(step));

/** Whether a Start that ends at `step` (failed, or cancelled if `cancelled`) must stop what it made. */
export function mustUndo(step: StepNumber, cancelled: boolean): boolean {
  const { undo } = STEPS[step];
  return undo === 'always' || (undo === 'if-cancelled' && cancelled);
}

/** The calls outside the nine steps, named for what they do. */
const OTHER_CALLS = {
  getSettings: 'settings',
  prepareCapabilities: 'settings and validation',
  checkReach: 'preflight reach',
  checkWrite: 'preflight write',
  stopTrainJob: 'stop TrainJob',
  prepareOperation: 'settings and ref',
  observeTrainJob: 'read TrainJob and Workload',
  applyWrite: 'write',
  deleteTrainJob: 'delete TrainJob',
  watchTrainJob: 'watch TrainJob',
  checkWatchedTrainJob: 'check watched TrainJob',
} as const satisfies Partial<Record<ActivityType, string>>;

/**
 * The folds of Start's back-to-back calls (src/activities/folded-start-activities.ts): each runs
 * these steps' calls on their first attempt. The metrics time each step inside a fold by itself.
 */
export const FOLDS = {
  readRuntimeThenCopy: [2, 5],
  setOwnerThenReadBack: [7, 8],
} as const satisfies Partial<Record<ActivityType, readonly StepNumber[]>>;

export const isFold = (activityType: string): activityType is keyof typeof FOLDS => Object.hasOwn(FOLDS, activityType);

/** A fold's label, as the Temporal UI shows its summary: "7 set owner, 8 read-back". */
const foldLabel = (steps: readonly StepNumber[]): string => steps.map((step) => stageLabel(step)).join(', ');

/**
 * Every activity's label: a step's is its step label ("5 create runtime copy"). The one name the
 * Temporal UI (each call's summary), DispatchStep and the metrics' `step` label give a call.
 */
export const ACTIVITY_LABELS = {
  ...OTHER_CALLS,
  ...Object.fromEntries(Object.entries(FOLDS).map(([fold, steps]) => [fold, foldLabel(steps)])),
  ...Object.fromEntries(
    (Object.keys(STAGES) as Stage[]).flatMap((stage) => {
      const step = STAGES[stage];
      return 'activity' in step ? [[step.activity, stageLabel(stage)]] : [];
    }),
  ),
} as Record<ActivityType, string>;
