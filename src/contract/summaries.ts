// The one-line summaries the Temporal UI shows (docs/contract.md §1): the static summary a client
// gives a workflow, and the first line of its current details, so that the UI reads the same for a
// workflow begun by any caller (this project's client, the temporal CLI, dispatch's Go client).
// Free of zod and I/O, like names.ts: the workflows import it as the contract table does.
import type { TrainJobRef } from '../model/operations.js';
import type { StartRequest } from '../model/request.js';
import { OPERATION_NAMES, type Operation } from './names.js';

/** "Start job <JobID> g=<G> s=<N> a=<attempt> as TrainJob <namespace>/<name>". */
export function startSummary(request: Pick<StartRequest, 'job' | 'generation' | 'submission' | 'attempt'>, namespace: string, name: string): string {
  const { job, generation, submission, attempt } = request;
  return `Start job ${job} g=${generation} s=${submission} a=${attempt} as TrainJob ${namespace}/${name}`;
}

/** "Open TrainJob <namespace>/<name> (uid <uid>)": the summary of an operation after Start. */
export function operationSummary(operation: Operation, ref: TrainJobRef): string {
  return `${OPERATION_NAMES[operation]} TrainJob ${ref.namespace}/${ref.name} (uid ${ref.uid})`;
}
