// Workflow interceptors (bundled into the workflow code, so deterministic: no I/O, no clock) that
// report where only the workflow knows for sure: how a Start closed and how its compensation ended.
// They call sinks, which the worker runs outside the sandbox; nothing enters the history, and
// replay does not call them again.
import {
  ApplicationFailure,
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
import { WorkflowTypes } from '../../model/workflows.js';
import type { DispatchSinks } from './sinks.js';

const START_WORKFLOW = WorkflowTypes.start;
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

class StartOutcome implements WorkflowInboundCallsInterceptor {
  async execute(
    input: WorkflowExecuteInput,
    next: Next<WorkflowInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    try {
      const result = await next(input);
      dispatchMetrics.startClosed('success', 'none');
      return result;
    } catch (error) {
      const closed = closedBy(error);
      if (closed) dispatchMetrics.startClosed(closed.outcome, closed.errorType);
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

export const interceptors: WorkflowInterceptorsFactory = () =>
  workflowInfo().workflowType === START_WORKFLOW
    ? { inbound: [new StartOutcome()], outbound: [new CompensationOutcome()] }
    : {};
