// How the Watch waker (watch-waker.ts) sends a wake: a signal, never signalWithStart (a wake must
// not start a Watch nobody asked for). A workflow that does not exist or has closed answers "not
// found", which only means no Watch of that TrainJob is waiting. docs/performance.md says why a
// signal and not an update or a polling activity.
//
// Each signal has a deadline: the client retries an unavailable server with backoff, and a wake
// that cannot be delivered soon is not worth more than the Watch's own timer; the deadline also
// bounds how long a stopping worker waits for its wakes in flight.
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { WATCH_WAKE_SIGNAL } from '../contract/names.js';

/** How long one wake may take, retries included. */
export const WAKE_DEADLINE_MS = 10_000;

export const signalWake =
  (client: Client, deadlineMs = WAKE_DEADLINE_MS) =>
  async (workflowId: string): Promise<'signalled' | 'not-watched'> => {
    try {
      await client.withDeadline(Date.now() + deadlineMs, () =>
        client.workflow.getHandle(workflowId).signal(WATCH_WAKE_SIGNAL),
      );
      return 'signalled';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return 'not-watched';
      throw error;
    }
  };
