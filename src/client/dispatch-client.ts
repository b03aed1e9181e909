// The typed client a TypeScript caller uses (dispatch itself is Go and calls the same workflow types
// by name with the same JSON). Requests are validated here with the workflow's own pure code, so a
// malformed request fails fast, with the same typed error the workflow would give.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type Client, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { Annotations, Dispatch, Trainer } from '../model/constants.js';
import type { DispatchError } from '../model/errors.js';
import { fromFailure } from '../model/error-failures.js';
import type { JobSpec, StartRequest } from '../model/request.js';
import type { BackendGates, Capabilities, FindResult, StartResult } from '../model/results.js';
import { startWorkflowIdPrefix, type Operation } from '../contract/names.js';
import { trainJobName } from '../core/start/names.js';
import { validateTrainJobRef } from '../core/operations/validate-ref.js';
import type { Outcome, TrainJobRef, TrainJobState } from '../model/operations.js';
import { validate } from '../core/start/validate.js';
import type { KubeClients } from '../kube/clients.js';
import { OperationWorkflows, Workflows } from '../contract/workflows.js';

export interface DispatchClientOptions {
  /** The Kubernetes namespace Starts create their objects in (config.namespace). */
  namespace: string;
  taskQueue?: string;
}

/** Rethrows a workflow failure as the typed DispatchError it carries, when it carries one. */
export function typed(error: unknown): unknown {
  return fromFailure(error) ?? error;
}

export class DispatchKubeflowClient {
  readonly taskQueue: string;

  constructor(
    readonly client: Client,
    readonly options: DispatchClientOptions,
  ) {
    this.taskQueue = options.taskQueue ?? Dispatch.defaultTaskQueue;
  }

  /** Starts (or attaches to the running) Start of this request's attempt; validated first. */
  async submit(request: StartRequest): Promise<WorkflowHandleWithFirstExecutionRunId> {
    const valid = validate(request);
    const subject = { namespace: this.options.namespace, name: trainJobName(valid.request.job, valid.request.submission), request: valid.request };
    const start = Workflows.start;
    return this.client.workflow.start(start.type, {
      taskQueue: this.taskQueue,
      workflowId: start.id(subject),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      args: [request],
      staticSummary: start.summary(subject),
      typedSearchAttributes: start.searchAttributes(subject),
    });
  }

  /** Starts and waits for the result; failures are thrown as DispatchError. */
  async startTrainJob(request: StartRequest): Promise<StartResult> {
    const handle = await this.submit(request);
    return Workflows.start.result.parse(await handle.result().catch((e: unknown) => Promise.reject(typed(e))));
  }

  /**
   * Starts the operation's workflow on this TrainJob (docs/contract.md §9), or attaches to the one
   * running under its id (`<op>/<ns>/<name>/<uid>`); the ref is checked first.
   */
  async submitOperation(operation: Operation, ref: TrainJobRef): Promise<WorkflowHandleWithFirstExecutionRunId> {
    const valid = validateTrainJobRef(ref);
    const workflow = OperationWorkflows[operation];
    return this.client.workflow.start(workflow.type, {
      taskQueue: this.taskQueue,
      workflowId: workflow.id(valid),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      args: [valid],
      staticSummary: workflow.summary(valid),
      typedSearchAttributes: workflow.searchAttributes(valid),
    });
  }

  /** The operation's result, parsed with its schema; failures are thrown as DispatchError. */
  private async operate<O extends Operation>(operation: O, ref: TrainJobRef): Promise<ReturnType<(typeof OperationWorkflows)[O]['result']['parse']>> {
    const handle = await this.submitOperation(operation, ref);
    const result: unknown = await handle.result().catch((e: unknown) => Promise.reject(typed(e)));
    return OperationWorkflows[operation].result.parse(result) as ReturnType<(typeof OperationWorkflows)[O]['result']['parse']>;
  }

  /** Lets a started TrainJob run: plain, spec.suspend false; Kueue, dispatch's gate removed. */
  open(ref: TrainJobRef): Promise<TrainJobState> {
    return this.operate('open', ref);
  }

  /** Suspends a TrainJob and marks it held; in Kueue mode its Workload is deactivated, freeing its quota. */
  hold(ref: TrainJobRef): Promise<TrainJobState> {
    return this.operate('hold', ref);
  }

  /** Undoes a Hold. */
  release(ref: TrainJobRef): Promise<TrainJobState> {
    return this.operate('release', ref);
  }

  /** Deletes the TrainJob and everything it owns. */
  stop(ref: TrainJobRef): Promise<TrainJobState> {
    return this.operate('stop', ref);
  }

  /** Waits until the TrainJob has completed, failed or gone. */
  watch(ref: TrainJobRef): Promise<Outcome> {
    return this.operate('watch', ref);
  }

  async capabilities(spec: Partial<JobSpec>): Promise<Capabilities> {
    const { type, id, result } = Workflows.capabilities;
    const answer: unknown = await this.client.workflow
      .execute(type, { taskQueue: this.taskQueue, workflowId: id({ namespace: this.options.namespace, unique: randomUUID() }), args: [{ spec }] })
      .catch((e: unknown) => Promise.reject(typed(e)));
    return result.parse(answer);
  }

  async probe(): Promise<BackendGates> {
    return startProbe(this.client, this.taskQueue, this.options.namespace);
  }

  /**
   * Find (docs/contract.md §7): InFlight while a Start of the job's submission runs, or for CallBound after
   * one ended in ErrOutcomeUnknown; otherwise Present (the TrainJob, with its token) or Absent.
   */
  async find(job: string, submission: number, kube: KubeClients, callBoundMs: number): Promise<FindResult> {
    const name = trainJobName(job, submission);
    // By workflow id (`start/<ns>/<name>/a<attempt>`), which every caller sets when it starts the
    // Start: the DispatchTrainJob search attribute is set by the workflow's first task, so a Start
    // begun by a caller that does not set it (dispatch's Go client) would be invisible until then.
    // The namespace is in the id: the same job and submission may be started in another namespace.
    const prefix = startWorkflowIdPrefix(this.options.namespace, name);
    const base = `WorkflowType = '${Workflows.start.type}' AND WorkflowId STARTS_WITH '${prefix}'`;
    for await (const execution of this.client.workflow.list({ query: `${base} AND ExecutionStatus = 'Running'` })) {
      return { state: 'InFlight', workflowId: execution.workflowId };
    }
    const since = new Date(Date.now() - callBoundMs).toISOString();
    for await (const execution of this.client.workflow.list({ query: `${base} AND ExecutionStatus = 'Failed' AND CloseTime > '${since}'` })) {
      const failure = await this.client.workflow
        .getHandle(execution.workflowId, execution.runId)
        .result()
        .then(() => undefined, (e: unknown) => (e instanceof WorkflowFailedError ? fromFailure(e) : undefined));
      if ((failure as DispatchError | undefined)?.type === 'ErrOutcomeUnknown') return { state: 'InFlight', workflowId: execution.workflowId };
    }
    try {
      const object = (await kube.custom.getNamespacedCustomObject({
        group: Trainer.group,
        version: Trainer.version,
        plural: Trainer.trainJobPlural,
        namespace: this.options.namespace,
        name,
      })) as { metadata?: { uid?: string; annotations?: Record<string, string> } };
      return {
        state: 'Present',
        ref: { namespace: this.options.namespace, name, uid: object.metadata?.uid ?? '' },
        attemptToken: object.metadata?.annotations?.[Annotations.attemptToken] ?? '',
      };
    } catch (error) {
      if ((error as { code?: number }).code === 404) return { state: 'Absent' };
      throw error;
    }
  }
}

/** Starts (or attaches to the running) probe of the namespace and returns its parsed result. */
export async function startProbe(client: Client, taskQueue: string, namespace: string): Promise<BackendGates> {
  const probe = Workflows.probe;
  const subject = { namespace };
  const result: unknown = await client.workflow.execute(probe.type, {
    taskQueue,
    workflowId: probe.id(subject),
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    staticSummary: probe.summary(subject),
    args: [],
  });
  return probe.result.parse(result);
}
