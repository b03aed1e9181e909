// The frame every operation after Start shares (docs/contract.md §9): its progress in the UI, the
// ref checked and the settings read (one local activity), the TrainJob named, and any failure
// shown, then thrown as its typed ApplicationFailure.
//
// The patch OPERATIONS_DECLARATIVE: runs begun since it use the declarative plans of docs/contract.md
// §9a (src/core/operations/plans.ts: a repeat answers the state, a ref whose UID is gone is Absent,
// lost races are ErrUnreachable, DispatchPhase is set when refusing too); runs begun before it,
// whose histories replay them, keep the plans from before (src/core/operations/plans-prepatch.ts).
import { patched } from '@temporalio/workflow';
import type { Config } from '../model/config.js';
import { OPERATIONS_DECLARATIVE, type Operation } from '../contract/names.js';
import type { TrainJobRef } from '../model/operations.js';
import { asWorkflowFailure } from './failures.js';
import { operationActivitiesFor, prepareOperation } from './operation-proxies.js';
import { classifyOperationCall } from './operation-failures.js';
import { endedBy, OperationReporter } from './operation-progress.js';

export interface OperationContext {
  ref: TrainJobRef;
  config: Config;
  calls: ReturnType<typeof operationActivitiesFor>;
  progress: OperationReporter;
  /** The run began under the patch OPERATIONS_DECLARATIVE: the plans and answers of §9a. */
  declarative: boolean;
}

export async function runOperation<T>(
  operation: Operation,
  input: unknown,
  body: (ctx: OperationContext) => Promise<T>,
): Promise<T> {
  // Decided once, before the first command: a run keeps the branch it began with.
  const declarative = patched(OPERATIONS_DECLARATIVE);
  const progress = new OperationReporter(operation);
  try {
    const { ref, settings } = await prepareOperation(input).catch(classifyOperationCall('the ref to be checked'));
    progress.identify(ref);
    return await body({ ref, config: settings.config, calls: operationActivitiesFor(settings.config), progress, declarative });
  } catch (error) {
    progress.finish(endedBy(error));
    throw asWorkflowFailure(error);
  }
}
