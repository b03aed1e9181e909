// How the Watch waker (watch-waker.ts) sends a wake: a signal, never signalWithStart (a wake must
// not start a Watch nobody asked for). A workflow that does not exist or has closed answers "not
// found", which only means no Watch of that TrainJob is waiting. docs/performance.md says why a
// signal and not an update or a polling activity.
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { WATCH_WAKE_SIGNAL } from '../model/workflows.js';

export const signalWake =
  (client: Client) =>
  async (workflowId: string): Promise<'signalled' | 'not-watched'> => {
    try {
      await client.workflow.getHandle(workflowId).signal(WATCH_WAKE_SIGNAL);
      return 'signalled';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return 'not-watched';
      throw error;
    }
  };
