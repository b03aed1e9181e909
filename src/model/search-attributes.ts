// The typed search attributes a Start sets, so operators can find it in the Temporal UI and the
// client's Find can ask for running Starts of a TrainJob. The namespace must have them registered
// (the dev stack does; docs/deploy.md says how elsewhere).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const DispatchJobId = defineSearchAttributeKey('DispatchJobId', SearchAttributeType.KEYWORD);
export const DispatchTrainJob = defineSearchAttributeKey('DispatchTrainJob', SearchAttributeType.KEYWORD);
export const DispatchStep = defineSearchAttributeKey('DispatchStep', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [DispatchJobId, DispatchTrainJob, DispatchStep] as const;
