// The one-line summary of a Start: the static summary the client gives the workflow, and the first
// line of the workflow's current details, so that the Temporal UI reads the same for a Start begun
// by any caller (this project's client, the temporal CLI, a Go client).
import type { StartRequest } from '../../model/request.js';

/** "Start job <JobID> g=<G> s=<N> a=<attempt> as TrainJob <namespace>/<name>". */
export function startSummary(request: Pick<StartRequest, 'job' | 'generation' | 'submission' | 'attempt'>, namespace: string, name: string): string {
  const { job, generation, submission, attempt } = request;
  return `Start job ${job} g=${generation} s=${submission} a=${attempt} as TrainJob ${namespace}/${name}`;
}
