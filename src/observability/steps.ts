// The step each activity implements, as the metrics label it: the label the Temporal UI and the
// DispatchStep search attribute show ("5 create runtime copy", src/core/start/steps.ts), so that a
// dashboard and the UI name a step alike.
import { ACTIVITY_LABELS } from '../core/start/steps.js';

/** The step label of an activity type; an activity added without a label is still measured, by its name. */
export const stepOfActivity = (activityType: string): string =>
  (ACTIVITY_LABELS as Record<string, string>)[activityType] ?? activityType;
