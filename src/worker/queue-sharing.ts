// Whether a worker of another release polls this worker's task queue (docs/contract.md §10). Two
// releases on one Temporal namespace with the same task queue take each other's workflows: the
// activities' guard refuses them (activities/namespace-guard.ts), and this check says so before
// any is refused, from the queue's pollers, whose identities name their namespace
// (contract/names.ts, workerIdentity). Reported in the log (when it changes), the metric
// dispatch_task_queue_shared and the readiness details.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { sleepUnlessAborted } from './preflight.js';
import { queueSharing, sharingReason, type QueueSharing, type WorkerPlace } from '../core/release/namespaces.js';

/** How often the pollers are read: a misconfiguration is a deploy's, and stays until the next. */
export const DEFAULT_QUEUE_CHECK_INTERVAL_MS = 60_000;
const DESCRIBE_TIMEOUT_MS = 5_000;

// A CommonJS module: its namespaces are properties of the default export under Node's ESM loader.
const { TaskQueueType } = proto.temporal.api.enums.v1;
const QUEUE_TYPES = [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY];

export interface QueueSharingCheck {
  /** The last check's finding; undefined before the first, or when the last could not read the pollers. */
  latest(): QueueSharing | undefined;
  /** The last check's reason to report a shared queue (sharingReason), if it found one. */
  reason(): string | undefined;
  /** One check now. */
  check(): Promise<QueueSharing | undefined>;
  /** Checks every interval until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
}

export interface QueueSharingOptions {
  client: Client;
  /** The Temporal namespace the queue is in. */
  temporalNamespace: string;
  place: WorkerPlace;
  intervalMs?: number;
  onChange(sharing: QueueSharing, reason: string | undefined): void;
  log(message: string, fields?: Record<string, unknown>): void;
}

export function createQueueSharingCheck(options: QueueSharingOptions): QueueSharingCheck {
  const { client, place } = options;
  let latest: QueueSharing | undefined;
  // The namespaces last reported: none at first, so that a queue of its own is not news.
  let reported = '';

  async function pollerIdentities(): Promise<string[]> {
    const answers = await Promise.all(
      QUEUE_TYPES.map((taskQueueType) =>
        client.withDeadline(Date.now() + DESCRIBE_TIMEOUT_MS, () =>
          client.workflowService.describeTaskQueue({ namespace: options.temporalNamespace, taskQueue: { name: place.taskQueue }, taskQueueType }),
        ),
      ),
    );
    return answers.flatMap((answer) => (answer.pollers ?? []).map((poller) => poller.identity ?? ''));
  }

  async function check(): Promise<QueueSharing | undefined> {
    try {
      latest = queueSharing(await pollerIdentities(), place);
    } catch (error) {
      // Temporal away: the pollers are unknown, which says nothing of sharing (readiness reports Temporal).
      options.log('task queue pollers could not be read', { taskQueue: place.taskQueue, error: (error as Error).message.split('\n')[0] });
      latest = undefined;
      return undefined;
    }
    const key = latest.otherNamespaces.join(',');
    if (key !== reported) {
      reported = key;
      options.onChange(latest, sharingReason(latest, place));
    }
    return latest;
  }

  return {
    latest: () => latest,
    reason: () => (latest ? sharingReason(latest, place) : undefined),
    check,
    async run(signal) {
      const intervalMs = options.intervalMs ?? DEFAULT_QUEUE_CHECK_INTERVAL_MS;
      while (!signal.aborted) {
        await check();
        await sleepUnlessAborted(intervalMs, signal);
      }
    },
  };
}
