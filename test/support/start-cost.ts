// What one workflow run cost its worker and Temporal, read from its history: the events, the
// workflow tasks, the search attribute upserts (each an event and a visibility write) and which
// workflow task sent each, the local activities, and the worker activations they imply. The
// upsert test (test/unit/workflows/upserts-per-task.test.ts), its real-stack twin
// (test/integration/start/start-cost.test.ts) and the bench's history section read it.
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The search attribute the SDK upserts with each patch marker (sdk-core's VERSION_SEARCH_ATTR_KEY). */
const CHANGE_VERSION = 'TemporalChangeVersion';

/** A Keyword search attribute's value: its payload is JSON. */
const keyword = (payload: temporal.api.common.v1.IPayload): string => String(JSON.parse(Buffer.from(payload.data ?? []).toString('utf8')));

export interface RunCost {
  events: number;
  /** Workflow tasks completed. */
  workflowTasks: number;
  /** UpsertWorkflowSearchAttributes events: each a visibility write. */
  upserts: number;
  /**
   * Of those, the workflow's own: not the SDK's upsert of TemporalChangeVersion, which goes with
   * the marker of the first call of each patched() id in a run.
   */
  workflowUpserts: number;
  /** The most of the workflow's own upserts any one workflow task sent. */
  upsertsPerTaskMax: number;
  /** Local activities completed (their markers), every attempt included. */
  localActivities: number;
  /**
   * Worker activations, as the history implies them: one per workflow task, plus one per local
   * activity resolved within it (the workflow wakes for each). Evictions are not counted.
   */
  activations: number;
  /** Timers started (a local call's backoff, among others). */
  timers: number;
}

export function runCost(events: readonly HistoryEvent[]): RunCost {
  const upsertsByTask = new Map<string, number>();
  let upserts = 0;
  let workflowTasks = 0;
  let localActivities = 0;
  let timers = 0;
  for (const event of events) {
    if (event.workflowTaskCompletedEventAttributes) workflowTasks++;
    if (event.timerStartedEventAttributes) timers++;
    if (event.markerRecordedEventAttributes?.markerName === 'core_local_activity') localActivities++;
    const upsert = event.upsertWorkflowSearchAttributesEventAttributes;
    if (upsert) upserts++;
    if (upsert && !upsert.searchAttributes?.indexedFields?.[CHANGE_VERSION]) {
      const task = String(upsert.workflowTaskCompletedEventId ?? '');
      upsertsByTask.set(task, (upsertsByTask.get(task) ?? 0) + 1);
    }
  }
  return {
    events: events.length,
    workflowTasks,
    upserts,
    workflowUpserts: [...upsertsByTask.values()].reduce((a, b) => a + b, 0),
    upsertsPerTaskMax: Math.max(0, ...upsertsByTask.values()),
    localActivities,
    activations: workflowTasks + localActivities,
    timers,
  };
}

/** The value one search attribute was given by each upsert that set it, in order. */
export function upsertedValues(events: readonly HistoryEvent[], key: string): string[] {
  const values: string[] = [];
  for (const event of events) {
    const payload = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[key];
    if (payload) values.push(keyword(payload));
  }
  return values;
}

/** What `key` said, as last upserted, when each timer started: what an operator saw during each wait. */
export function valuesAtTimers(events: readonly HistoryEvent[], key: string): (string | undefined)[] {
  let current: string | undefined;
  const seen: (string | undefined)[] = [];
  for (const event of events) {
    const payload = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[key];
    if (payload) current = keyword(payload);
    if (event.timerStartedEventAttributes) seen.push(current);
  }
  return seen;
}
