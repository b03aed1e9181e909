// The CLI commands that call the workflows through Temporal (connection from TEMPORAL_*).
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { stringify } from 'yaml';
import type { Config } from '../model/config.js';
import { parseGoDuration, toMillis } from '../model/duration.js';
import { DispatchError } from '../model/errors.js';
import type { StartRequest } from '../model/request.js';
import { parseRuntimeKey } from '../core/objects/runtime-name.js';
import { RuntimeNameSchema } from '../model/config.js';
import { createKubeClients, loadKubeConfig } from '../kube/clients.js';
import { connectClient } from '../worker/connect.js';
import { DispatchKubeflowClient, typed } from '../client/dispatch-client.js';

export type Output = 'yaml' | 'json';

export const format = (value: unknown, output: Output) => (output === 'json' ? `${JSON.stringify(value, null, 2)}\n` : stringify(value));

/** Runs `fn` with a typed client on a connection from TEMPORAL_*, closed afterwards. */
export async function withClient<T>(config: Config, fn: (client: DispatchKubeflowClient) => Promise<T>): Promise<T> {
  const client = await connectClient();
  try {
    return await fn(new DispatchKubeflowClient(client, { namespace: config.namespace, taskQueue: config.temporal.taskQueue }));
  } finally {
    await client.connection.close();
  }
}

/** Without `wait`, the started workflow's id and run id; with it, its result (a failure thrown typed). */
export async function answerOf(handle: WorkflowHandleWithFirstExecutionRunId, opts: { wait: boolean; output: Output }): Promise<string> {
  if (!opts.wait) return format({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId }, opts.output);
  const result: unknown = await handle.result().catch((e: unknown) => Promise.reject(typed(e)));
  return format(result, opts.output);
}

export async function startCommand(config: Config, request: unknown, opts: { wait: boolean; output: Output }): Promise<string> {
  return withClient(config, async (client) => answerOf(await client.submit(request as StartRequest), opts));
}

export async function checkRuntimeCommand(config: Config, runtime: string, opts: { output: Output }): Promise<string> {
  if (!RuntimeNameSchema.safeParse(runtime).success) {
    throw new DispatchError('ErrInvalid', [`runtime ${runtime}: must be "TrainingRuntime/<name>" or "ClusterTrainingRuntime/<name>"`], 2);
  }
  const { kind, name } = parseRuntimeKey(runtime);
  return withClient(config, async (client) =>
    format(await client.capabilities({ extensions: { 'kubeflow/RuntimeRef': { kind, name } } }), opts.output),
  );
}

export async function probeCommand(config: Config, opts: { output: Output }): Promise<string> {
  return withClient(config, async (client) => format(await client.probe(), opts.output));
}

export async function findCommand(config: Config, job: string, submission: number, opts: { output: Output }): Promise<string> {
  const kube = createKubeClients(loadKubeConfig(config.kubeconfig));
  const callMs = toMillis(parseGoDuration(config.timeouts.call)!);
  return withClient(config, async (client) => format(await client.find(job, submission, kube, callMs), opts.output));
}
