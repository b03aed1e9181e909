// What the workflow interceptor reports to the worker. Sinks are Temporal's one-way channel out of
// the workflow sandbox: the call leaves no trace in the history and is not made again on replay.
import type { Sinks } from '@temporalio/workflow';

export interface DispatchSinks extends Sinks {
  dispatchMetrics: {
    /**
     * An operation's workflow closed (StartTrainJob, OpenTrainJob, ...: operation start, open, ...):
     * outcome success | failure | cancelled, and the failure's type.
     */
    operationClosed(operation: string, outcome: string, errorType: string): void;
    /** A compensation (stopTrainJob in a Start) finished, as the workflow saw it: stopped | failed. */
    compensationFinished(result: string): void;
  };
}
