// The step each activity implements, as the metrics label it: the seed's step in the form the
// DispatchStep search attribute and the Temporal UI show ("5 create runtime copy"), so that a
// dashboard and the UI name a step alike. Activities outside the nine steps are named for what they do.
import type { Activities } from '../activities/index.js';
import { stepLabel } from '../workflows/steps.js';

export const ACTIVITY_STEPS = {
  getSettings: 'settings',
  prepareStart: 'settings and validation',
  prepareCapabilities: 'settings and validation',
  checkReach: 'preflight reach',
  checkWrite: 'preflight write',
  readRuntime: stepLabel(2),
  createRuntimeCopy: stepLabel(5),
  createTrainJob: stepLabel(6),
  setOwner: stepLabel(7),
  readBack: stepLabel(8),
  waitForWorkload: stepLabel(9),
  stopTrainJob: 'stop TrainJob',
} satisfies Record<keyof Activities, string>;

/** The step label of an activity type; an activity added without a label is still measured, by its name. */
export const stepOfActivity = (activityType: string): string =>
  (ACTIVITY_STEPS as Record<string, string>)[activityType] ?? activityType;
