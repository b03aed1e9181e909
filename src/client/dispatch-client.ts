// The typed client a TypeScript caller uses (dispatch itself is Go and calls the same workflow types
// by name with the same JSON). Requests are validated here with the workflow's own pure code, so a
// malformed request fails fast, with the same typed error the workflow would give.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type Client, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { Annotations, Dispatch, Trainer } from '../model/constants.js';
import { fromFailure, type DispatchError } from '../model/errors.js';
import type { JobSpec, StartRequest } from '../model/request.js';
import type { BackendGates, Capabilities, FindResult, StartResult } from '../model/results.js';
import { DispatchJobId, DispatchTrainJob } from '../model/search-attributes.js';
import { trainJobName } from '../core/start/names.js';
import { operationSummary } from '../core/operations/summary.js';
import { startSummary } from '../core/start/summary.js';
import { lifecycleWorkflowId } from '../core/operations/workflow-ids.js';
import { validateTrainJobRef } from '../core/operations/validate-ref.js';
import { LifecycleWorkflowTypes, type LifecycleOperation } from '../model/lifecycle-constants.js';
import type { Outcome, TrainJobRef, TrainJobState } from '../model/lifecycle.js';
import { validate } from '../core/start/validate.js';
import type { KubeClients } from '../activities/kube-clients.js';
import { probeWorkflowId } from '../worker/preflight.js';

export interface DispatchClientOptions {
  /** The Kubernetes namespace Starts create their objects in (config.namespace). */
  namespace: string;
  taskQueue?: string;
}

/** What every Start id of one TrainJob begins with, whatever its attempt. */
export const startWorkflowIdPrefix = (namespace: string, name: string) => `start/${namespace}/${name}/`;
/** Workflow id of a Start: `start/<namespace>/<name>/a<attempt>` (docs/contract.md §1). */
export const startWorkflowId = (namespace: string, name: string, attempt: number) => `${startWorkflowIdPrefix(namespace, name)}a${attempt}`;

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
    const { job, submission, attempt } = valid.request;
    const name = trainJobName(job, submission);
    return this.client.workflow.start('StartTrainJob', {
      taskQueue: this.taskQueue,
      workflowId: startWorkflowId(this.options.namespace, name, attempt),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      args: [request],
      staticSummary: startSummary(valid.request, this.options.namespace, name),
      typedSearchAttributes: [
        { key: DispatchJobId, value: job },
        { key: DispatchTrainJob, value: name },
      ],
    });
  }

  /** Starts and waits for the result; failures are thrown as DispatchError. */
  async startTrainJob(request: StartRequest): Promise<StartResult> {
    const handle = await this.submit(request);
    return (await handle.result().catch((e: unknown) => Promise.reject(typed(e)))) as StartResult;
  }

  /**
   * Starts the operation's workflow on this TrainJob (docs/contract.md §9), or attaches to the one
   * running under its id (`<op>/<ns>/<name>/<uid>`); the ref is checked first.
   */
  async submitOperation(operation: LifecycleOperation, ref: TrainJobRef): Promise<WorkflowHandleWithFirstExecutionRunId> {
    const valid = validateTrainJobRef(ref);
    return this.client.workflow.start(LifecycleWorkflowTypes[operation], {
      taskQueue: this.taskQueue,
      workflowId: lifecycleWorkflowId(operation, valid),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      args: [valid],
      staticSummary: operationSummary(operation, valid),
      typedSearchAttributes: [{ key: DispatchTrainJob, value: valid.name }],
    });
  }

  private async operate<T>(operation: LifecycleOperation, ref: TrainJobRef): Promise<T> {
    const handle = await this.submitOperation(operation, ref);
    return (await handle.result().catch((e: unknown) => Promise.reject(typed(e)))) as T;
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
    return (await this.client.workflow
      .execute('TrainJobCapabilities', {
        taskQueue: this.taskQueue,
        workflowId: `capabilities/${this.options.namespace}/${randomUUID()}`,
        args: [{ spec }],
      })
      .catch((e: unknown) => Promise.reject(typed(e)))) as Capabilities;
  }

  async probe(): Promise<BackendGates> {
    return (await this.client.workflow.execute('ProbeBackend', {
      taskQueue: this.taskQueue,
      workflowId: probeWorkflowId(this.options.namespace),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      args: [],
    })) as BackendGates;
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
    const base = `WorkflowType = 'StartTrainJob' AND WorkflowId STARTS_WITH '${prefix}'`;
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
