// The typed search attributes a Start sets, so operators can find it in the Temporal UI and the
// client's Find can ask for running Starts of a TrainJob. The namespace must have them registered
// (the dev stack does; docs/deploy.md says how elsewhere).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { SearchAttributes } from './constants.js';

export const DispatchJobId = defineSearchAttributeKey(SearchAttributes.jobId, SearchAttributeType.KEYWORD);
export const DispatchTrainJob = defineSearchAttributeKey(SearchAttributes.trainJob, SearchAttributeType.KEYWORD);
export const DispatchStep = defineSearchAttributeKey(SearchAttributes.step, SearchAttributeType.KEYWORD);
export const DispatchPhase = defineSearchAttributeKey(SearchAttributes.phase, SearchAttributeType.KEYWORD);
