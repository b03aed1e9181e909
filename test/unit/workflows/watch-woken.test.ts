// WatchTrainJob as docs/contract.md §9b says (patch watch-woken): the real workflow on the
// time-skipping test server, its one read (checkWatchedTrainJob) stubbed. A `wake` answers without
// waiting for the timer; with no wake the durable timer of timeouts.watchRecheck rechecks; an API
// that does not answer is read again after 1 s, 2 s, 4 s ... up to watchRecheck and the details say
// since when; a long Watch continues as new carrying that; and a Watch begun before the patch
// replays its old path (one heartbeating activity).
import { WorkflowFailedError, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { WatchCheck } from '../../../src/activities/watch-check.js';
import type { FailureDetails } from '../../../src/model/errors.js';
import type { Outcome, Phase } from '../../../src/model/operations.js';
import { DispatchPhase } from '../../../src/contract/search-attributes.js';
import { WATCH_WAKE_SIGNAL, WorkflowTypes } from '../../../src/contract/names.js';
import { MAX_EVENTS } from '../../../src/workflows/watch-woken.js';
import { REF } from '../core/operation-fixtures.js';
import { loadHistory, patchIds } from '../replay/corpus.js';
import { configOf, workflowBundle } from './support/start-stubs.js';
import { operationStubs, type OperationStubs } from './support/operation-stubs.js';
import { timeSkippingSuite } from './support/time-skipping-suite.js';

const ts = timeSkippingSuite();
/** Each test runs a worker and the time-skipping server on a loaded machine. */
const TEST_MS = 90_000;

const SUCCEEDED: Outcome = { ref: REF, phase: 'Succeeded', reason: 'JobCompleted', message: 'done', finishedAt: '2026-01-01T00:05:00Z' };
const state = (phase: Phase): WatchCheck => ({ state: { ref: REF, phase, held: false, reasons: [`because ${phase}`] } });
const UNANSWERED: WatchCheck = { unanswered: { problem: 'reading TrainJob: no answer from the Kubernetes API (ECONNREFUSED)' } };

let runs = 0;
interface Watching {
  stubs: OperationStubs;
  handle: WorkflowHandleWithFirstExecutionRunId;
  /** Runs the worker until the Watch ends; `meanwhile` runs with the worker up, before the result is awaited (time skips only then). */
  ended(meanwhile?: () => Promise<void>): Promise<{ result?: unknown; error?: unknown }>;
}

/** The Watch's current details, as the UI reads them. */
const detailsOf = async (handle: WorkflowHandle) =>
  (await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;
const sinceIn = (details: string) => /the API has not answered since (\S+)/.exec(details)?.[1];

async function watch(checks: WatchCheck[], config = configOf({ timeouts: { watchRecheck: '7m' } })): Promise<Watching> {
  const taskQueue = `watch-woken-${++runs}`;
  const stubs = operationStubs(config, {}, { watchChecks: checks });
  const worker = await Worker.create({ connection: ts.env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), activities: stubs.activities });
  const handle = await ts.env.client.workflow.start(WorkflowTypes.watch, { args: [REF], taskQueue, workflowId: `watch/${REF.namespace}/${REF.name}/${REF.uid}/${runs}` });
  return {
    stubs,
    handle,
    ended: (meanwhile = async () => {}) =>
      worker.runUntil(
        meanwhile().then(() =>
          handle.result().then(
            (result: unknown) => ({ result }),
            (error: unknown) => ({ error }),
          ),
        ),
      ),
  };
}

/** The events of a run's history, by what they hold. */
async function eventsOf(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  return {
    timers: events.flatMap((e) => (e.timerStartedEventAttributes ? [Number(e.timerStartedEventAttributes.startToFireTimeout?.seconds ?? 0)] : [])),
    fired: events.filter((e) => e.timerFiredEventAttributes).length,
    signals: events.filter((e) => e.workflowExecutionSignaledEventAttributes).length,
    activityTasks: events.filter((e) => e.activityTaskScheduledEventAttributes).length,
    patches: patchIds({ events }),
  };
}

const until = async (what: string, ok: () => Promise<boolean>) => {
  for (let i = 0; i < 600; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe('Watch, woken (docs/contract.md §9b)', () => {
  it('holds no activity while it waits; a wake reads again and answers, before its timer fires; DispatchPhase follows', async () => {
    const w = await watch([state('Running'), { outcome: SUCCEEDED }]);
    const ran = await w.ended(async () => {
      await until('the Watch to show Running', async () => (await w.handle.query<{ phase?: string }>('progress')).phase === 'Running');
      expect((await w.handle.describe()).typedSearchAttributes.get(DispatchPhase)).toBe('Running');
      expect(await detailsOf(w.handle)).toContain(
        `Waiting for: TrainJob ${REF.namespace}/${REF.name} to complete, fail or go (woken by its changes, read again every 7m at least)`,
      );
      await w.handle.signal(WATCH_WAKE_SIGNAL);
    });
    expect(ran.result).toEqual(SUCCEEDED);
    const events = await eventsOf(w.handle);
    expect(events).toMatchObject({ timers: [420], fired: 0, signals: 1, activityTasks: 0, patches: expect.arrayContaining(['watch-branch-at-start']) });
    expect(w.stubs.count('checkWatchedTrainJob')).toBe(2);
    expect(w.stubs.count('watchTrainJob')).toBe(0);
    expect((await w.handle.describe()).typedSearchAttributes.get(DispatchPhase)).toBe('Succeeded');
  }, TEST_MS);

  it('with no wake, its durable timer of timeouts.watchRecheck reads again, as often as it takes', async () => {
    const w = await watch([state('Queued'), state('Running'), { outcome: SUCCEEDED }]);
    expect((await w.ended()).result).toEqual(SUCCEEDED);
    expect(await eventsOf(w.handle)).toMatchObject({ timers: [420, 420], fired: 2, signals: 0, activityTasks: 0 });
    expect((await w.handle.describe()).typedSearchAttributes.get(DispatchPhase)).toBe('Succeeded');
  }, TEST_MS);

  it('through an API that does not answer it reads again after 1, 2, 4 s ... up to watchRecheck, says since when, and starts over once the API answers', async () => {
    const w = await watch([UNANSWERED, UNANSWERED, UNANSWERED, state('Running'), UNANSWERED, { outcome: SUCCEEDED }], configOf({ timeouts: { watchRecheck: '5m' } }));
    const reads = (n: number) => until(`read ${n}`, async () => w.stubs.count('checkWatchedTrainJob') >= n);
    const ran = await w.ended(async () => {
      // Time does not skip until the result is awaited: these are the first timers, on the wall clock.
      await reads(2);
      const since = sinceIn(await detailsOf(w.handle));
      expect(since).toMatch(/^\d{4}-\d\d-\d\dT/);
      await reads(3);
      expect(sinceIn(await detailsOf(w.handle))).toBe(since);
      await reads(4);
      const answered = await detailsOf(w.handle);
      expect(answered).toContain('Phase: Running');
      expect(answered).not.toContain('has not answered');
    });
    expect(ran.result).toEqual(SUCCEEDED);
    // 1, 2, 4 s; the recheck after Running; 1 s again after the next silence.
    expect((await eventsOf(w.handle)).timers).toEqual([1, 2, 4, 300, 1]);
  }, TEST_MS);

  it('a refusal (a TrainJob of that UID not dispatch’s) is ErrRejected, DispatchPhase set to the phase read', async () => {
    const w = await watch([{ refused: ['Watch of TrainJob: not dispatch’s'], state: { ref: REF, phase: 'Running', held: false, reasons: [] } }]);
    const ran = await w.ended();
    expect(ran.error).toBeInstanceOf(WorkflowFailedError);
    const failure = (ran.error as WorkflowFailedError).cause as ApplicationFailure;
    expect({ type: failure.type, ...(failure.details?.[0] as FailureDetails) }).toMatchObject({ type: 'ErrRejected', reasons: ['Watch of TrainJob: not dispatch’s'] });
    expect((await w.handle.describe()).typedSearchAttributes.get(DispatchPhase)).toBe('Running');
  }, TEST_MS);

  it(`continues as new past ${MAX_EVENTS} events, carrying the silence it shows and its backoff`, async () => {
    const checks = [state('Running'), ...Array<WatchCheck>(200).fill(UNANSWERED), { outcome: SUCCEEDED }];
    const w = await watch(checks, configOf({ timeouts: { watchRecheck: '1m' } }));
    const first = ts.env.client.workflow.getHandle(w.handle.workflowId, w.handle.firstExecutionRunId);
    const ran = await w.ended(async () => {
      await until('the first read', async () => w.stubs.count('checkWatchedTrainJob') >= 1);
      await ts.env.sleep('1m');
      await until('the first silence', async () => w.stubs.count('checkWatchedTrainJob') >= 2);
      const since = sinceIn(await detailsOf(first));
      expect(since).toBeDefined();
      // Time skips by hand, one wait at a time, until the first run continues as new.
      for (let i = 0; i < 400 && (await first.describe()).status.name !== 'CONTINUED_AS_NEW'; i++) {
        const before = w.stubs.count('checkWatchedTrainJob');
        await ts.env.sleep('1m');
        await until('the next read', async () => w.stubs.count('checkWatchedTrainJob') > before || (await first.describe()).status.name !== 'RUNNING');
      }
      const described = await first.describe();
      expect(described.status.name).toBe('CONTINUED_AS_NEW');
      expect(described.historyLength).toBeLessThanOrEqual(MAX_EVENTS + 10);
      // The next run read once and waits (no time skips now): it shows the first run's silence.
      const next = ts.env.client.workflow.getHandle(w.handle.workflowId);
      await until('the next run to wait', async () => (await detailsOf(next).catch(() => '')).includes('Waiting for'));
      expect(sinceIn(await detailsOf(next))).toBe(since);
    });
    expect(ran.result).toEqual(SUCCEEDED);
    // The run that answered began with what the first carried; its first wait was the longest, not 1 s.
    const lastRun = ts.env.client.workflow.getHandle(w.handle.workflowId);
    const events = (await lastRun.fetchHistory()).events ?? [];
    const carried = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[1];
    const continued = JSON.parse(Buffer.from(carried!.data!).toString('utf8')) as { shown?: string; unansweredSince?: string; unanswered?: number };
    expect(continued).toMatchObject({ shown: 'Running', unansweredSince: expect.stringMatching(/^\d{4}-/) });
    expect(continued.unanswered).toBeGreaterThan(100);
    expect((await eventsOf(lastRun)).timers[0]).toBe(60);
  }, 180_000);
});

describe('Watch begun before the patch watch-woken', () => {
  it('replays its old path, one heartbeating activity (its recorded histories have no watch-woken marker)', async () => {
    for (const [set, file] of [
      ['02-operations', 'watch-plain-succeeded.json'],
      ['04-real-kueue-and-paths', 'watch-continued-as-new.json'],
    ] as const) {
      const { history } = loadHistory(set, file);
      expect(patchIds(history), file).not.toContain('watch-woken');
      expect(history.events?.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'watchTrainJob'), file).toBe(true);
      await Worker.runReplayHistory({ workflowBundle: await workflowBundle(), replayName: file }, history, `${set}/${file}`);
    }
  });
});
