// OpenTrainJob, HoldTrainJob and ReleaseTrainJob(TrainJobRef) -> TrainJobState (docs/contract.md §9):
// one loop (change-trainjob.ts), each with its own plan.
import type { TrainJobState } from '../model/operations.js';
import { changeTrainJob } from './change-trainjob.js';

export const OpenTrainJob = (input: unknown): Promise<TrainJobState> => changeTrainJob('open', input);
export const HoldTrainJob = (input: unknown): Promise<TrainJobState> => changeTrainJob('hold', input);
export const ReleaseTrainJob = (input: unknown): Promise<TrainJobState> => changeTrainJob('release', input);
