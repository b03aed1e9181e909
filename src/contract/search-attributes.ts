// The typed search attributes the workflows set, so operators can find them in the Temporal UI and
// the client's Find can ask for running Starts of a TrainJob; their names are in names.ts. The
// namespace must have them registered (the dev stack does; docs/deploy.md says how elsewhere).
// Free of zod and I/O: the workflows import it.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { SearchAttributes } from './names.js';

export const DispatchJobId = defineSearchAttributeKey(SearchAttributes.jobId, SearchAttributeType.KEYWORD);
export const DispatchTrainJob = defineSearchAttributeKey(SearchAttributes.trainJob, SearchAttributeType.KEYWORD);
export const DispatchStep = defineSearchAttributeKey(SearchAttributes.step, SearchAttributeType.KEYWORD);
export const DispatchPhase = defineSearchAttributeKey(SearchAttributes.phase, SearchAttributeType.KEYWORD);
