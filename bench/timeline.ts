// Where a Start's time goes, from its history's event times and the client's clock (one machine,
// one clock): before the server records the Start, workflow tasks waiting for and running on the
// worker (with the local activities they run), activity tasks waiting and running, and the result
// reaching the client.
import type { WorkflowHandle } from '@temporalio/client';
import { ms, spread, type Spread } from './stats.js';

type History = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>>;
type HistoryEvent = NonNullable<History['events']>[number];

export const HOPS = [
  'client to WorkflowExecutionStarted',
  'workflow tasks waiting (scheduled to started)',
  'workflow tasks running (started to completed; local activities run inside)',
  'activity tasks waiting (scheduled to started)',
  'activity tasks running (started to completed)',
  'WorkflowExecutionCompleted to client',
] as const;
export type Hop = (typeof HOPS)[number];

export interface TimedStart {
  /** Date.now() when the client called, and when it had the result. */
  calledAt: number;
  answeredAt: number;
  history: History;
}

const at = (event: HistoryEvent) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

/** Milliseconds per hop for one Start: each hop's durations summed. */
export function hopsOf(start: TimedStart): Record<Hop, number> {
  const events = start.history.events ?? [];
  const sum = Object.fromEntries(HOPS.map((h) => [h, 0])) as Record<Hop, number>;
  const scheduledAt = new Map<string, number>();
  const startedAt = new Map<string, number>();
  for (const event of events) {
    const id = String(event.eventId);
    if (event.workflowExecutionStartedEventAttributes) sum[HOPS[0]] += at(event) - start.calledAt;
    else if (event.workflowExecutionCompletedEventAttributes) sum[HOPS[5]] += start.answeredAt - at(event);
    else if (event.workflowTaskScheduledEventAttributes || event.activityTaskScheduledEventAttributes)
      scheduledAt.set(id, at(event));
    else if (event.workflowTaskStartedEventAttributes) {
      const from = scheduledAt.get(String(event.workflowTaskStartedEventAttributes.scheduledEventId));
      if (from !== undefined) sum[HOPS[1]] += at(event) - from;
      startedAt.set(id, at(event));
    } else if (event.workflowTaskCompletedEventAttributes) {
      const from = startedAt.get(String(event.workflowTaskCompletedEventAttributes.startedEventId));
      if (from !== undefined) sum[HOPS[2]] += at(event) - from;
    } else if (event.activityTaskStartedEventAttributes) {
      const from = scheduledAt.get(String(event.activityTaskStartedEventAttributes.scheduledEventId));
      if (from !== undefined) sum[HOPS[3]] += at(event) - from;
      startedAt.set(id, at(event));
    } else if (event.activityTaskCompletedEventAttributes) {
      const from = startedAt.get(String(event.activityTaskCompletedEventAttributes.startedEventId));
      if (from !== undefined) sum[HOPS[4]] += at(event) - from;
    }
  }
  return sum;
}

export function hopSpreads(starts: readonly TimedStart[]): Record<Hop, Spread> {
  const all = starts.map(hopsOf);
  return Object.fromEntries(HOPS.map((h) => [h, spread(all.map((s) => s[h]))])) as Record<Hop, Spread>;
}

/** "workflow tasks running 80.1 ms, ..." (medians per Start). */
export const describeHops = (hops: Record<Hop, Spread>) =>
  HOPS.map((h) => `${h} ${ms(hops[h].p50)}`).join('; ');
