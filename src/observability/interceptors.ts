// The worker's side of dispatch's metrics and logs: an activity interceptor that times every
// activity attempt by the step it implements and adds the step (and the run id, under the name
// workflow logs give it) to the activity's log lines; the sinks the workflow interceptor reports
// to; and where that interceptor module is for the bundler.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@temporalio/common';
import {
  Runtime,
  type ActivityExecuteInput,
  type ActivityInboundCallsInterceptor,
  type ActivityInterceptorsFactory,
  type ActivityOutboundCallsInterceptor,
  type GetLogAttributesInput,
  type InjectedSinks,
  type Next,
  type WorkerOptions,
} from '@temporalio/worker';
import type { DispatchMetrics } from './metrics.js';
import { stepOfActivity } from './steps.js';
import { isFold } from '../core/start/steps.js';
import type { DispatchSinks } from './workflow/sinks.js';

export function stepInterceptor(metrics: DispatchMetrics): ActivityInterceptorsFactory {
  return (ctx) => {
    const step = stepOfActivity(ctx.info.activityType);
    return {
      inbound: {
        async execute(
          input: ActivityExecuteInput,
          next: Next<ActivityInboundCallsInterceptor, 'execute'>,
        ): Promise<unknown> {
          // A fold of Start's calls times each of its steps itself (ActivityDeps.timeStep).
          if (isFold(ctx.info.activityType)) return next(input);
          const stop = metrics.stepDuration.startTimer({ step });
          try {
            return await next(input);
          } finally {
            stop();
          }
        },
      },
      outbound: {
        getLogAttributes(
          input: GetLogAttributesInput,
          next: Next<ActivityOutboundCallsInterceptor, 'getLogAttributes'>,
        ) {
          const runId = ctx.info.workflowExecution?.runId;
          return next({ ...input, ...(runId ? { runId } : {}), step });
        },
      },
    };
  };
}

/** Runs whose close this worker has counted, the most recent last (bounded: see operationClosed). */
const COUNTED_RUNS_KEPT = 10_000;

/**
 * Whether a run is met for the first time: a closing workflow task that Temporal refuses (a signal,
 * such as a Watch's wake, or a cancellation arrived while it ran: UnhandledCommand) is run again
 * from the start of the task, not as replay, so a sink called in it is called again for the same run.
 */
function firstTimeFor(): (runId: string) => boolean {
  const seen = new Set<string>();
  return (runId) => {
    if (seen.has(runId)) return false;
    seen.add(runId);
    if (seen.size > COUNTED_RUNS_KEPT) seen.delete(seen.values().next().value!);
    return true;
  };
}

export function metricsSinks(metrics: DispatchMetrics, logger?: Logger): InjectedSinks<DispatchSinks> {
  const closeFirstSeen = firstTimeFor();
  // A run compensates at most once (the stop runs once, non-cancellable): count it once too.
  const compensationFirstSeen = firstTimeFor();
  return {
    dispatchMetrics: {
      operationClosed: {
        fn(info, operation, outcome, errorType) {
          if (!closeFirstSeen(info.runId)) return;
          // From the start of the workflow chain (a Watch continued as new counts from its first
          // run), stamped by the server, to now: the sink runs just after the closing workflow task.
          const seconds = Math.max(0, (Date.now() - info.startTime.getTime()) / 1000);
          metrics.operations.inc({ operation, outcome, error_type: errorType });
          metrics.operationDuration.observe({ operation, outcome }, seconds);
          if (operation === 'start') metrics.starts.inc({ outcome, error_type: errorType });
          logger?.info(operation === 'start' ? 'Start closed' : 'operation closed', {
            workflowId: info.workflowId,
            runId: info.runId,
            workflowType: info.workflowType,
            operation,
            outcome,
            errorType,
            seconds,
          });
        },
      },
      compensationFinished: {
        fn(info, result) {
          if (!compensationFirstSeen(info.runId)) return;
          metrics.compensations.inc({ result });
          logger?.info('compensation finished', { workflowId: info.workflowId, runId: info.runId, result });
        },
      },
    },
  };
}

/**
 * The workflow interceptor modules to bundle with the workflows (`interceptors.workflowModules`, or
 * `workflowInterceptorModules` of bundleWorkflowCode for a prebuilt bundle). From src/ they are .ts
 * (tsx, vitest), from dist/ .js.
 */
export function workflowInterceptorModules(): string[] {
  for (const ext of ['.ts', '.js']) {
    const path = fileURLToPath(new URL(`./workflow/interceptors${ext}`, import.meta.url));
    if (existsSync(path)) return [path];
  }
  throw new Error('workflow interceptor module not found next to src/observability/interceptors');
}

/**
 * What a worker needs for dispatch's metrics: the step timer, the sinks, and the workflow
 * interceptor module when the worker bundles the workflows itself (a prebuilt bundle must have been
 * built with workflowInterceptorModules()).
 */
export function metricsWorkerOptions(
  metrics: DispatchMetrics,
  bundlesFromSource: boolean,
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  return {
    interceptors: {
      activity: [stepInterceptor(metrics)],
      ...(bundlesFromSource ? { workflowModules: workflowInterceptorModules() } : {}),
    },
    sinks: metricsSinks(metrics, Runtime.instance().logger),
  };
}
