// A Watch's history replays however its workflow tasks fell (docs/versioning.md), on a worker with
// nothing cached, as a worker started after every other was killed does. The layouts that broke:
// wakes arriving while the first workflow task runs, when that task ended the Watch (its first read
// answered), had the server refuse it (UnhandledCommand); Core, having counted its internal flags
// written with the refused completion, wrote none in the next task, and the replay failed at the
// patch marker. Patch `watch-first-task-open` (src/workflows/first-task-open.ts) keeps that task
// from ending the Watch. Also: prepareOperation outliving a workflow task (Core completes the task
// to heartbeat it, and the activity's marker lands in the next one).
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { WatchCheck } from '../../../src/activities/watch-check.js';
import type { Outcome } from '../../../src/model/operations.js';
import { WATCH_WAKE_SIGNAL, WorkflowTypes } from '../../../src/contract/names.js';
import { REF } from '../core/operation-fixtures.js';
import { patchIds } from '../replay/corpus.js';
import { configOf, workflowBundle } from './support/start-stubs.js';
import { operationStubs } from './support/operation-stubs.js';
import { timeSkippingSuite } from './support/time-skipping-suite.js';

const ts = timeSkippingSuite();

const SUCCEEDED: Outcome = { ref: REF, phase: 'Succeeded', reason: 'JobCompleted', message: 'done', finishedAt: '2026-01-01T00:05:00Z' };

interface Layout {
  name: string;
  prepareMs: number;
  taskTimeout?: string;
  /** Wake signals sent this long after the start. */
  wakesAtMs: number[];
  checks: WatchCheck[];
}

const LAYOUTS: Layout[] = [
  { name: 'prepareOperation outliving the workflow task (its marker in the next task)', prepareMs: 2_500, taskTimeout: '2s', wakesAtMs: [], checks: [{ outcome: SUCCEEDED }] },
  { name: 'wakes while prepareOperation runs', prepareMs: 800, wakesAtMs: [100, 300, 500], checks: [{ outcome: SUCCEEDED }] },
  { name: 'wakes while prepareOperation outlives the task', prepareMs: 2_500, taskTimeout: '2s', wakesAtMs: [100, 1_700, 2_200], checks: [{ outcome: SUCCEEDED }] },
  {
    name: 'wakes right after the start, then Running, then Succeeded',
    prepareMs: 0,
    wakesAtMs: [0, 0, 5, 10, 50, 400],
    checks: [{ state: { ref: REF, phase: 'Running', held: false, reasons: [] } }, { outcome: SUCCEEDED }],
  },
];

let runs = 0;

describe('Watch histories of every task layout replay on a worker with nothing cached', () => {
  for (const layout of LAYOUTS) {
    it(layout.name, async () => {
      const config = configOf({ timeouts: { watchRecheck: '7m' } });
      const stubs = operationStubs(config, {}, { watchChecks: layout.checks });
      const slowPrepare: typeof stubs.activities.prepareOperation = async (input) => {
        await new Promise((resolve) => setTimeout(resolve, layout.prepareMs));
        return stubs.activities.prepareOperation(input);
      };
      const taskQueue = `watch-replay-layouts-${++runs}`;
      const worker = await Worker.create({
        connection: ts.env.nativeConnection,
        taskQueue,
        workflowBundle: await workflowBundle(),
        activities: { ...stubs.activities, prepareOperation: slowPrepare },
      });
      const handle = await ts.env.client.workflow.start(WorkflowTypes.watch, {
        args: [REF],
        taskQueue,
        workflowId: `watch/${REF.namespace}/${REF.name}/${REF.uid}/layouts-${runs}`,
        ...(layout.taskTimeout ? { workflowTaskTimeout: layout.taskTimeout } : {}),
      });
      const wakes = Promise.all(
        layout.wakesAtMs.map((ms) => new Promise((resolve) => setTimeout(resolve, ms)).then(() => handle.signal(WATCH_WAKE_SIGNAL).catch(() => undefined))),
      );
      const result = await worker.runUntil(wakes.then(() => handle.result()));
      expect(result).toMatchObject({ phase: 'Succeeded' });
      const history = await handle.fetchHistory();
      // Decided at the start (patch watch-branch-at-start): neither later patch is asked for.
      expect(patchIds(history)).toContain('watch-branch-at-start');
      expect(patchIds(history)).not.toContain('watch-woken');
      // The Watches that end in their first pass take first-task-open's new branch: a 1 ms timer before the end.
      const oneMsTimers = (history.events ?? []).filter((e) => Number(e.timerStartedEventAttributes?.startToFireTimeout?.nanos ?? 0) === 1_000_000);
      expect(oneMsTimers.length).toBe(layout.checks.length === 1 ? 1 : 0);
      if (process.env.DUMP_LAYOUT) console.log(layout.name, JSON.stringify((history.events ?? []).map((e) => [e.eventId?.toString(), e.eventType, e.markerRecordedEventAttributes?.markerName ?? e.workflowTaskFailedEventAttributes?.cause ?? ''])));
      await Worker.runReplayHistory({ workflowBundle: await workflowBundle(), replayName: layout.name }, history, layout.name);
    }, 60_000);
  }
});
