// The one-line summary of an operation after Start, for the Temporal UI (as start/summary.ts is Start's).
import type { LifecycleOperation } from '../../model/lifecycle-constants.js';
import type { TrainJobRef } from '../../model/lifecycle.js';
import { OP_NAMES } from './plan.js';

/** "Open TrainJob <namespace>/<name> (uid <uid>)": the summary of an operation after Start. */
export function operationSummary(operation: LifecycleOperation, ref: TrainJobRef): string {
  return `${OP_NAMES[operation]} TrainJob ${ref.namespace}/${ref.name} (uid ${ref.uid})`;
}
