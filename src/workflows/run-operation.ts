// The frame every operation after Start shares (docs/contract.md §9): its progress in the UI, the
// ref checked and the settings read (one local activity), the TrainJob named, and any failure
// shown, then thrown as its typed ApplicationFailure.
import type { Config } from '../model/config.js';
import type { LifecycleOperation } from '../model/lifecycle-constants.js';
import type { TrainJobRef } from '../model/lifecycle.js';
import { asWorkflowFailure } from './failures.js';
import { operationActivitiesFor, prepareOperation } from './lifecycle-proxies.js';
import { classifyOperationCall } from './operation-failures.js';
import { endedBy, OperationReporter } from './operation-progress.js';

export interface OperationContext {
  ref: TrainJobRef;
  config: Config;
  calls: ReturnType<typeof operationActivitiesFor>;
  progress: OperationReporter;
}

export async function runOperation<T>(
  operation: LifecycleOperation,
  input: unknown,
  body: (ctx: OperationContext) => Promise<T>,
): Promise<T> {
  const progress = new OperationReporter(operation);
  try {
    const { ref, settings } = await prepareOperation(input).catch(classifyOperationCall('the ref to be checked'));
    progress.identify(ref);
    return await body({ ref, config: settings.config, calls: operationActivitiesFor(settings.config), progress });
  } catch (error) {
    progress.finish(endedBy(error));
    throw asWorkflowFailure(error);
  }
}
