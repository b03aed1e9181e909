// The layout that left a Watch unanswerable after every worker was killed (CI, stop of b083c75;
// reproduced in test/integration/reliability/watch-crash.test.ts under load): Core completed the
// Watch's first workflow task to heartbeat it just as prepareOperation ended, so the activity's
// marker went out with that task while the code that read its result ran in the next one. A replay
// hands the result over in the first task, the code asks for patch `watch-woken` there, finds no
// marker in that task, takes the old branch and then fails on the marker: "[TMPRL1100]
// Nondeterminism error: Non-deprecated patch marker encountered for change watch-woken". Patch
// `watch-branch-at-start` (src/workflows/watch-trainjob.ts) decides the branch before any local
// activity. The layout is made here from real histories by splitting their first task after the
// activity's marker, as Core's heartbeat did, renumbering the events and the ids that point at them.
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../../src/model/operations.js';
import { WATCH_WAKE_SIGNAL, WorkflowTypes } from '../../../src/contract/names.js';
import { REF } from '../core/operation-fixtures.js';
import { historyFiles, loadHistory, patchIds } from '../replay/corpus.js';
import { historyFromJson, historyToJson, type History } from '../replay/history-json.js';
import { configOf, workflowBundle } from './support/start-stubs.js';
import { operationStubs } from './support/operation-stubs.js';
import { timeSkippingSuite } from './support/time-skipping-suite.js';

const ts = timeSkippingSuite();

type JsonEvent = { eventId: string; eventType: string } & Record<string, unknown>;

const SUCCEEDED: Outcome = { ref: REF, phase: 'Succeeded', reason: 'JobCompleted', message: 'done', finishedAt: '2026-01-01T00:05:00Z' };
const TASK = ['EVENT_TYPE_WORKFLOW_TASK_SCHEDULED', 'EVENT_TYPE_WORKFLOW_TASK_STARTED', 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED'];

const attributesOf = (event: JsonEvent) => Object.entries(event).find(([key]) => key.endsWith('EventAttributes'))?.[1] as Record<string, unknown> | undefined;
const markerName = (event: JsonEvent) => attributesOf(event)?.markerName as string | undefined;

/** Every `...EventId` of the event's attributes through `map` (ids are strings in canonical JSON). */
function remapIds(value: unknown, map: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => remapIds(v, map));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key, key.endsWith('EventId') && typeof v === 'string' && map.has(v) ? map.get(v) : remapIds(v, map)]),
  );
}

/**
 * The history with its first local activity's marker kept in the task that recorded it, and the
 * commands after it moved to a new workflow task (scheduled, started, completed with no SDK
 * flags), as when Core heartbeats a task the moment the activity ends.
 */
function heartbeatAfterFirstLocalActivity(history: History): History {
  const events = (JSON.parse(historyToJson(history)) as { events: JsonEvent[] }).events;
  const at = events.findIndex((e) => markerName(e) === 'core_local_activity');
  const before = events.slice(0, at).reverse();
  const [scheduled, started, completed] = TASK.map((type) => structuredClone(before.find((e) => e.eventType === type)!)) as [JsonEvent, JsonEvent, JsonEvent];
  const firstTaskCompleted = before.find((e) => e.eventType === TASK[2])!.eventId;
  scheduled.eventId = 'task-scheduled';
  started.eventId = 'task-started';
  (started.workflowTaskStartedEventAttributes as Record<string, unknown>).scheduledEventId = 'task-scheduled';
  completed.eventId = 'task-completed';
  completed.workflowTaskCompletedEventAttributes = {
    ...(completed.workflowTaskCompletedEventAttributes as Record<string, unknown>),
    scheduledEventId: 'task-scheduled',
    startedEventId: 'task-started',
    sdkMetadata: {},
  };
  // The commands after the marker, up to the next task, are the new task's.
  const rest = events.slice(at + 1).map((e, i, all) => {
    const beforeNextTask = all.slice(0, i + 1).every((x) => !TASK.includes(x.eventType));
    const attributes = attributesOf(e) ?? {};
    if (!beforeNextTask || attributes?.workflowTaskCompletedEventId !== firstTaskCompleted) return e;
    const key = Object.keys(e).find((k) => k.endsWith('EventAttributes'))!;
    return { ...e, [key]: { ...attributes, workflowTaskCompletedEventId: 'task-completed' } };
  });
  const split = [...events.slice(0, at + 1), scheduled, started, completed, ...rest];
  const ids = new Map(split.map((e, i) => [e.eventId, String(i + 1)]));
  return historyFromJson({ events: split.map((e) => ({ ...(remapIds(e, ids) as JsonEvent), eventId: ids.get(e.eventId)! })) });
}

/** Each event's type and marker name, to compare with the layout CI printed. */
const layoutOf = (history: History) =>
  (JSON.parse(historyToJson(history)) as { events: JsonEvent[] }).events.map((e) => `${e.eventType.replace('EVENT_TYPE_', '')}${markerName(e) ? `:${markerName(e)}` : ''}`);

const replay = async (history: History, name: string) => Worker.runReplayHistory({ workflowBundle: await workflowBundle(), replayName: name }, history, name);

describe("a Watch whose first local activity's marker went out with a heartbeat of its first task", () => {
  it('begun before patch watch-branch-at-start (asking for watch-woken after the activity), it cannot be replayed: the failure CI met', async () => {
    const recorded = loadHistory('06-watch-woken', 'watch-plain-succeeded.json').history;
    await replay(recorded, 'as recorded');
    const split = heartbeatAfterFirstLocalActivity(recorded);
    const layout = layoutOf(split);
    const marker = layout.indexOf('MARKER_RECORDED:core_local_activity');
    expect(layout.slice(marker - 2, marker + 6)).toEqual([
      'MARKER_RECORDED:core_patch',
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
      'MARKER_RECORDED:core_local_activity',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_COMPLETED',
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
      'MARKER_RECORDED:core_patch',
    ]);
    await expect(replay(split, 'split')).rejects.toThrow(/Non-deprecated patch marker encountered for change watch-woken/);
  });

  it('begun under it (every patch asked for before any activity), it replays, and so does every other layout of it', async () => {
    const config = configOf({ timeouts: { watchRecheck: '7m' } });
    const stubs = operationStubs(config, {}, { watchChecks: [{ state: { ref: REF, phase: 'Running', held: false, reasons: [] } }, { outcome: SUCCEEDED }] });
    const taskQueue = 'watch-marker-early';
    const worker = await Worker.create({ connection: ts.env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), activities: stubs.activities });
    const handle = await ts.env.client.workflow.start(WorkflowTypes.watch, { args: [REF], taskQueue, workflowId: `watch/${REF.namespace}/${REF.name}/${REF.uid}/marker-early` });
    const result = await worker.runUntil(async () => {
      // The first read shows Running (its timer armed); a wake then reads Succeeded.
      while ((await handle.query<{ phase?: string }>('progress')).phase !== 'Running') await new Promise((r) => setTimeout(r, 50));
      await handle.signal(WATCH_WAKE_SIGNAL);
      return handle.result();
    });
    expect(result).toMatchObject({ phase: 'Succeeded' });
    const recorded = await handle.fetchHistory();
    expect(patchIds(recorded)).toEqual(['watch-branch-at-start', 'operations-declarative']);
    const split = heartbeatAfterFirstLocalActivity(recorded);
    expect(layoutOf(split).filter((e) => e === 'WORKFLOW_TASK_COMPLETED')).toHaveLength(layoutOf(recorded).filter((e) => e === 'WORKFLOW_TASK_COMPLETED').length + 1);
    await replay(recorded, 'as recorded');
    await replay(split, 'split');
  }, 60_000);

  it('every recorded Watch of the new branch (set 14) replays split so too', async () => {
    const files = historyFiles('14-watch-branch-at-start');
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) await replay(heartbeatAfterFirstLocalActivity(loadHistory('14-watch-branch-at-start', file).history), `14/${file} split`);
  });
});
