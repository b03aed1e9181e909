// A Start's search attributes go out once per workflow task (patch start-one-upsert-per-task,
// src/workflows/progress.ts), and the step a local call is stuck at is still what an operator reads
// while it backs off: the real StartTrainJob workflow on the time-skipping test server, its
// activities stubbed under their real names, each run's history read for what it cost
// (test/support/start-cost.ts). Before the patch a plain Start sent seven upserts in two tasks.
import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { trainJobName } from '../../../src/core/start/names.js';
import type { StartResult } from '../../../src/model/results.js';
import { DispatchStep } from '../../../src/contract/search-attributes.js';
import { runCost, upsertedValues, valuesAtTimers } from '../../support/start-cost.js';
import { configOf, REQUEST, startStubs, stubbedWorker, unanswered, type StartStubs } from './support/start-stubs.js';
import { timeSkippingSuite } from './support/time-skipping-suite.js';

const ts = timeSkippingSuite();
const NAME = trainJobName(REQUEST.job, REQUEST.submission);
/** A CallBound the wall clock can wait out: local activities are timed by the worker. */
const SHORT_CALL = { timeouts: { call: '1s', workload: '60s' } };

let runs = 0;
async function run(stubs: StartStubs) {
  const id = ++runs;
  const taskQueue = `upserts-${id}`;
  const worker = await stubbedWorker(ts.env, taskQueue, stubs);
  const handle = await ts.env.client.workflow.start('StartTrainJob', {
    args: [REQUEST],
    taskQueue,
    workflowId: `start/ml-jobs/${NAME}/upserts-${id}`,
  });
  const outcome = await worker.runUntil(
    handle.result().then(
      (result: StartResult) => ({ result, error: undefined }),
      (error: unknown) => ({ result: undefined, error }),
    ),
  );
  const events = (await handle.fetchHistory()).events ?? [];
  return { ...outcome, events, cost: runCost(events) };
}

/** Answers unanswered `times` times, then as a healthy API server would. */
function unansweredFirst<T>(times: number, answer: (input: never) => T): (input: never) => T {
  let calls = 0;
  return (input) => {
    if (++calls <= times) throw unanswered('stubbed');
    return answer(input);
  };
}

describe('search attribute upserts of a Start', () => {
  it('a plain Start sends one upsert in each of its two workflow tasks, and its steps are the same calls', async () => {
    const stubs = startStubs(configOf());
    const { result, cost, events } = await run(stubs);
    expect(result?.name).toBe(NAME);
    expect(stubs.called()).toEqual(['prepareStart', 'readRuntime', 'createRuntimeCopy', 'createTrainJob', 'setOwner', 'readBack']);
    // The other two upserts are the SDK's TemporalChangeVersion, one with each patch's marker
    // (start-one-upsert-per-task, start-folded-calls). Steps 2 and 5, 7 and 8, are one local
    // activity each: with prepareStart, three local activities, five activations.
    expect(cost).toMatchObject({ workflowTasks: 2, upserts: 4, workflowUpserts: 2, upsertsPerTaskMax: 1, localActivities: 3, activations: 5 });
    // The first task's upsert names the job and the step it then waits at; the second, the outcome.
    expect(upsertedValues(events, DispatchStep.name)).toEqual(['6 create TrainJob', `started ml-jobs/${NAME}`]);
    expect(upsertedValues(events, 'DispatchTrainJob')).toEqual([NAME]);
  });

  it('a local call that backs off shows its step while it waits: step 5 unanswered twice, then the Start succeeds', async () => {
    const stubs = startStubs(configOf(), {
      createRuntimeCopy: unansweredFirst(2, ({ copy }: { copy: { metadata?: { name?: string } } }) => ({
        name: copy.metadata?.name ?? '',
        uid: 'copy-0000-uid',
        reused: false,
      })),
    });
    const { result, cost, events } = await run(stubs);
    expect(result?.name).toBe(NAME);
    expect(stubs.inputsOf('createRuntimeCopy')).toHaveLength(3);
    // Two backoffs (200 ms, then 400 ms as before), each with step 5 visible while it runs.
    expect(valuesAtTimers(events, DispatchStep.name)).toEqual(['5 create runtime copy', '5 create runtime copy']);
    expect(cost.upsertsPerTaskMax).toBe(1);
    expect(cost.timers).toBe(2);
  });

  it('a call unanswered until CallBound: the step it stopped at is visible during each backoff, and the failure is the step\'s', async () => {
    const stubs = startStubs(configOf(SHORT_CALL), { readRuntime: 'unanswered' });
    const { error, cost, events } = await run(stubs);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as { type?: string; details?: { step: number }[] };
    expect({ type: cause.type, step: cause.details?.[0]?.step }).toEqual({ type: 'ErrUnreachable', step: 2 });
    // The first attempt, then the rest of the policy: how many retries fit in 1 s of wall clock
    // (the worker times a local activity) depends on the machine's load.
    expect(stubs.inputsOf('readRuntime').length).toBeGreaterThan(1);
    const seen = valuesAtTimers(events, DispatchStep.name);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['2 read runtime']));
    expect(cost.upsertsPerTaskMax).toBe(1);
    expect(upsertedValues(events, DispatchStep.name).at(-1)).toBe('ErrUnreachable at step 2 read runtime');
  });
});
