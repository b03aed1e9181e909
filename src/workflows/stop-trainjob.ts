// StopTrainJob(TrainJobRef) -> TrainJobState (docs/contract.md §9): deletes the TrainJob of that
// UID with Background propagation; the runtime copy and the Workload it owns, and the JobSet, Jobs
// and pods below it, go with it. Answers Absent once the TrainJob is gone or being deleted; a
// TrainJob already gone is Absent too, not an error, and so (since the patch in run-operation.ts) is
// a ref whose name now belongs to another UID: nothing of that UID is left to stop (§9a).
import { DispatchError } from '../model/errors.js';
import type { TrainJobState } from '../model/operations.js';
import { isBeingDeleted } from '../core/objects/deletion.js';
import { identityRefusals } from '../core/operations/identity.js';
import { identityRefusalsPrePatch } from '../core/operations/plans-prepatch.js';
import { stateOf } from '../core/operations/phase.js';
import { classifyOperationCall } from './operation-failures.js';
import { runOperation } from './run-operation.js';

/** Deletes answered but not seen, before the Stop gives up (ErrOutcomeUnknown). */
const MAX_DELETES = 5;

export function StopTrainJob(input: unknown): Promise<TrainJobState> {
  return runOperation('stop', input, async ({ ref, config, calls, progress, declarative }) => {
    for (let deletes = 0; ; deletes++) {
      progress.waiting(`TrainJob ${ref.namespace}/${ref.name} to be read`);
      const observed = { ...(await calls.observeTrainJob({ config, ref }).catch(classifyOperationCall('the TrainJob to be read', ref))), config };
      const refusals = (declarative ? identityRefusals : identityRefusalsPrePatch)('stop', ref, observed);
      const state = stateOf(ref, observed);
      if (refusals.length > 0) {
        if (declarative && observed.trainJob !== undefined) progress.observed(state.phase, state.reasons);
        throw new DispatchError('ErrRejected', refusals, 0, ref);
      }
      progress.observed(state.phase, state.reasons);
      const { trainJob } = observed;
      if (trainJob === undefined || trainJob.metadata.uid !== ref.uid || isBeingDeleted(trainJob)) {
        progress.finish(state.phase);
        return state;
      }
      if (deletes >= MAX_DELETES) {
        throw new DispatchError('ErrOutcomeUnknown', [`TrainJob ${ref.namespace}/${ref.name} is still there after ${deletes} deletes`, ...state.reasons], 0, ref);
      }
      progress.waiting(`TrainJob ${ref.namespace}/${ref.name} to be deleted (Background propagation)`);
      await calls.deleteTrainJob({ ref }).catch(classifyOperationCall('the TrainJob to be deleted', ref));
    }
  });
}
