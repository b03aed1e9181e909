// What each activity of a test's worker was given and gave back, by workflow. A Start's Kubernetes
// calls run as local activities, whose inputs the history does not keep, so tests that check what
// dispatch sent read it here; ActivityCalls records every attempt, local or not.
import type { ActivityInterceptorsFactory } from '@temporalio/worker';

export interface ActivityCall {
  workflowId: string;
  runId: string;
  type: string;
  local: boolean;
  attempt: number;
  input: unknown;
  /** The result, once the attempt returned. */
  result?: unknown;
  /** What the attempt threw. */
  error?: unknown;
}

export class ActivityCalls {
  private readonly calls: ActivityCall[] = [];

  readonly interceptor: ActivityInterceptorsFactory = (ctx) => ({
    inbound: {
      execute: async (input, next) => {
        const call: ActivityCall = {
          workflowId: ctx.info.workflowExecution?.workflowId ?? '',
          runId: ctx.info.workflowExecution?.runId ?? '',
          type: ctx.info.activityType,
          local: ctx.info.isLocal,
          attempt: ctx.info.attempt,
          input: input.args[0],
        };
        this.calls.push(call);
        try {
          call.result = await next(input);
          return call.result;
        } catch (error) {
          call.error = error;
          throw error;
        }
      },
    },
  });

  /** The attempts a workflow made, in order; of one activity type when given. */
  of(workflowId: string, type?: string): ActivityCall[] {
    return this.calls.filter((c) => c.workflowId === workflowId && (type === undefined || c.type === type));
  }

  /** The one successful attempt of an activity type in a workflow. */
  succeeded(workflowId: string, type: string): ActivityCall {
    const done = this.of(workflowId, type).filter((c) => 'result' in c);
    if (done.length !== 1) throw new Error(`${workflowId}: ${done.length} successful ${type} attempts, expected 1`);
    return done[0]!;
  }
}
