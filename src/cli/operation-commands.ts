// The CLI verbs after Start (docs/contract.md §9): `open`, `hold`, `release`, `stop` and `watch`
// start (or attach to) the operation's workflow as `start` does its Start; `status` reads the
// TrainJob (and in Kueue mode its Workload) itself, with no workflow, and says its TrainJobState.
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { DispatchError } from '../model/errors.js';
import type { Operation } from '../contract/names.js';
import type { TrainJobRef, TrainJobState } from '../model/operations.js';
import { stateOf } from '../core/operations/phase.js';
import { createKubeClients, loadKubeConfig } from '../kube/clients.js';
import { KubeUnanswered } from '../kube/call.js';
import { ObjectCalls } from '../kube/objects.js';
import { readTrainJob } from '../kube/read-trainjob.js';
import { answerOf, format, withClient, type Output } from './remote-commands.js';

/** Open, Hold, Release, Stop or Watch of the ref: the workflow's ids, or with `wait` its result. */
export async function operationCommand(
  config: Config,
  operation: Operation,
  ref: TrainJobRef,
  opts: { wait: boolean; output: Output },
): Promise<string> {
  return withClient(config, async (client) => answerOf(await client.submitOperation(operation, ref), opts));
}

/**
 * The TrainJobState of the ref, decided by `stateOf` from one read, as an operation's first read
 * would be. A ref outside the configured namespace is refused (ErrRejected), as the operations
 * refuse it; no answer within `timeouts.call` is ErrUnreachable.
 */
export async function readState(config: Config, ref: TrainJobRef): Promise<TrainJobState> {
  if (ref.namespace !== config.namespace) {
    throw new DispatchError('ErrRejected', [`status of TrainJob ${ref.namespace}/${ref.name}: dispatch works in namespace ${config.namespace} only`], 0, ref);
  }
  const requestTimeoutMs = toMillis(parseGoDuration(config.timeouts.call)!);
  const calls = new ObjectCalls(createKubeClients(loadKubeConfig(config.kubeconfig)), { requestTimeoutMs });
  const observed = await readTrainJob(calls, config, ref).catch((error: unknown) => {
    if (error instanceof KubeUnanswered) throw new DispatchError('ErrUnreachable', [error.message], 0, ref);
    throw error;
  });
  return stateOf(ref, { ...observed, config });
}

export async function statusCommand(config: Config, ref: TrainJobRef, opts: { output: Output }): Promise<string> {
  return format(await readState(config, ref), opts.output);
}
