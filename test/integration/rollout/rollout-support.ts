// What the rollout tests (rollout.test.ts) read and run: the `temporal worker deployment` commands
// docs/versioning.md gives an operator, and which build completed each workflow task of a history.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { stackInfo } from '../support/context.js';

const run = promisify(execFile);

/** `temporal worker deployment <args> -o json` against the server at `address`; its JSON answer. */
export async function deploymentCommand(address: string, ...args: string[]): Promise<unknown> {
  const { stdout } = await run(stackInfo().temporal.cli, ['worker', 'deployment', ...args, '--address', address, '-o', 'json'], {
    env: { ...process.env, TEMPORAL_CONFIG_FILE: '/dev/null' },
  });
  return stdout.trim() === '' ? {} : (JSON.parse(stdout) as unknown);
}

/** Runs `attempt` until it succeeds, at most `boundMs`; the last error otherwise. */
export async function untilAccepted<T>(what: string, boundMs: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: not accepted within ${boundMs} ms: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/**
 * The one workflow task failure that is no fault of the code: the server refuses a completion
 * that ends the workflow while new events (a Watch's wakes) came in during the task, and the
 * worker runs the task again with them. Counted apart.
 */
const NEW_EVENTS_DURING_TASK = proto.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND;

/** What a history says of builds: the build of each completed workflow task, and whether a task failed. */
export interface HistoryBuilds {
  builds: string[];
  /** Workflow tasks that failed for their code: nondeterminism, a workflow that threw, ... */
  workflowTaskFailures: string[];
  /** Completions the server refused for new events (NEW_EVENTS_DURING_TASK). */
  refusedForNewEvents: number;
  /** Whether a timer started before the first marker (local activity): build N+1's change. */
  timerFirst: boolean;
}

/** Of the workflow's latest run, or of the run given (e.g. the first of a chain that continued as new). */
export async function historyBuilds(client: Client, workflowId: string, runId?: string): Promise<HistoryBuilds> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const builds: string[] = [];
  const workflowTaskFailures: string[] = [];
  let refusedForNewEvents = 0;
  let timerFirst: boolean | undefined;
  for (const event of history.events ?? []) {
    const completed = event.workflowTaskCompletedEventAttributes;
    if (completed) builds.push(completed.deploymentVersion?.buildId ?? '');
    const failed = event.workflowTaskFailedEventAttributes;
    if (failed?.cause === NEW_EVENTS_DURING_TASK) refusedForNewEvents += 1;
    else if (failed) workflowTaskFailures.push(`${proto.api.enums.v1.WorkflowTaskFailedCause[failed.cause ?? 0]}: ${failed.failure?.message ?? ''}`);
    if (timerFirst === undefined && event.timerStartedEventAttributes) timerFirst = true;
    if (timerFirst === undefined && (event.markerRecordedEventAttributes || event.activityTaskScheduledEventAttributes)) timerFirst = false;
  }
  return { builds, workflowTaskFailures, refusedForNewEvents, timerFirst: timerFirst ?? false };
}

/** The builds of a chain's first run (given) and of its latest (a Watch may have continued as new). */
export async function chainBuilds(client: Client, workflowId: string, firstRunId: string): Promise<{ first: HistoryBuilds; last: HistoryBuilds; continuedAsNew: boolean }> {
  const latestRunId = (await client.workflow.getHandle(workflowId).describe()).runId;
  const [first, last] = await Promise.all([historyBuilds(client, workflowId, firstRunId), historyBuilds(client, workflowId, latestRunId)]);
  return { first, last, continuedAsNew: latestRunId !== firstRunId };
}

/** Runs `fn` on every item, `concurrency` at once. */
export async function eachLimited<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!, i);
      }
    }),
  );
  return results;
}
