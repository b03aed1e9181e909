// The one-line summary of an operation after Start, for the Temporal UI (as start/summary.ts is Start's).
import type { Operation } from '../../contract/names.js';
import type { TrainJobRef } from '../../model/operations.js';
import { OPERATION_NAMES } from './plan.js';

/** "Open TrainJob <namespace>/<name> (uid <uid>)": the summary of an operation after Start. */
export function operationSummary(operation: Operation, ref: TrainJobRef): string {
  return `${OPERATION_NAMES[operation]} TrainJob ${ref.namespace}/${ref.name} (uid ${ref.uid})`;
}
