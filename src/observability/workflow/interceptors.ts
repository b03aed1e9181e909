// Workflow interceptors (bundled into the workflow code, so deterministic: no I/O, no clock) that
// report where only the workflow knows for sure: how an operation (Start, Open, Hold, Release, Stop,
// Watch) closed, and how a Start's compensation ended. They call
// sinks, which the worker runs outside the sandbox; nothing enters the history, and replay does not
// call them again.
import {
  ApplicationFailure,
  ContinueAsNew,
  isCancellation,
  proxySinks,
  TemporalFailure,
  workflowInfo,
  type ActivityInput,
  type LocalActivityInput,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { OPERATIONS, WorkflowTypes, type WorkflowKey } from '../../contract/names.js';
import type { DispatchSinks } from './sinks.js';

const START_WORKFLOW = WorkflowTypes.start;
/** The operation each measured workflow type is: StartTrainJob start, OpenTrainJob open, ... */
const OPERATION_OF: ReadonlyMap<string, WorkflowKey> = new Map(
  (['start', ...OPERATIONS] as const).map((key) => [WorkflowTypes[key], key]),
);
const STOP_ACTIVITY = 'stopTrainJob';

const { dispatchMetrics } = proxySinks<DispatchSinks>();

/**
 * Only a Temporal failure closes the workflow; any other error fails the workflow task, which
 * Temporal retries, so it is not an outcome (yet).
 */
function closedBy(error: unknown): { outcome: string; errorType: string } | undefined {
  if (isCancellation(error)) return { outcome: 'cancelled', errorType: 'none' };
  if (error instanceof ApplicationFailure) return { outcome: 'failure', errorType: error.type ?? 'unknown' };
  if (error instanceof TemporalFailure) return { outcome: 'failure', errorType: error.name };
  return undefined;
}

/** Reports the close of an operation's workflow; a continue-as-new (a long Watch) does not close it. */
class OperationOutcome implements WorkflowInboundCallsInterceptor {
  constructor(private readonly operation: WorkflowKey) {}

  private closed(outcome: string, errorType: string): void {
    dispatchMetrics.operationClosed(this.operation, outcome, errorType);
  }

  async execute(
    input: WorkflowExecuteInput,
    next: Next<WorkflowInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    try {
      const result = await next(input);
      this.closed('success', 'none');
      return result;
    } catch (error) {
      const closed = error instanceof ContinueAsNew ? undefined : closedBy(error);
      if (closed) this.closed(closed.outcome, closed.errorType);
      throw error;
    }
  }
}

function reportStop(activityType: string, result: Promise<unknown>): Promise<unknown> {
  if (activityType === STOP_ACTIVITY) {
    result.then(
      () => dispatchMetrics.compensationFinished('stopped'),
      () => dispatchMetrics.compensationFinished('failed'),
    );
  }
  return result;
}

/**
 * In a Start every stopTrainJob is a compensation (the preflight probe's stop is its clean-up), run
 * as a local activity. Both kinds of scheduling are watched, so that the metric stays right if that
 * ever changes.
 */
class CompensationOutcome implements WorkflowOutboundCallsInterceptor {
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return reportStop(input.activityType, next(input));
  }

  scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ): Promise<unknown> {
    return reportStop(input.activityType, next(input));
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  const { workflowType } = workflowInfo();
  const operation = OPERATION_OF.get(workflowType);
  if (operation === undefined) return {};
  return {
    inbound: [new OperationOutcome(operation)],
    ...(workflowType === START_WORKFLOW ? { outbound: [new CompensationOutcome()] } : {}),
  };
};
