// kill -9 of every worker while a Watch waits (docs/contract.md §9b): two worker processes serve
// the task queue, each with its waker; the Watch shows Running and holds no activity; both are
// killed; the TrainJob completes while no worker is up; a worker process started afterwards
// answers Succeeded, woken by its first list (the TrainJob ended within watchRecheck), long
// before the Watch's timer (an hour here), and it is that worker that completes the Watch.
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { operationWorkflowId } from '../../../src/contract/names.js';
import { TrainJobConditions } from '../../../src/model/constants.js';
import type { Condition } from '../../../src/model/kube.js';
import { startRequest } from '../../support/requests.js';
import { runtimeFixtures } from '../support/runtimes.js';
import { readTrainJob, runFor } from '../operations/support.js';
import { eventually, reliabilityLab } from '../../reliability/support/lab.js';
import { isIdentityOf } from '../../support/worker-process.js';

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** Each event's type, with a marker's name, a failed task's cause and a completed task's SDK flags. */
const layoutOf = (events: HistoryEvent[]) =>
  events.map((e) => [
    String(e.eventType),
    e.markerRecordedEventAttributes?.markerName ??
      e.workflowTaskFailedEventAttributes?.cause ??
      (e.workflowTaskCompletedEventAttributes ? JSON.stringify(e.workflowTaskCompletedEventAttributes.sdkMetadata ?? {}) : ''),
  ]);

describe('kill -9 of every worker while a Watch waits', () => {
  const lab = reliabilityLab('watch-crash');

  it('a worker started after the TrainJob completed answers Succeeded, woken by its first list, not by the timer', async () => {
    const config = lab.config({ timeouts: { call: '10s', workload: '5s', watchRecheck: '1h' } });
    const client = lab.client(config);
    const runtime = await runtimeFixtures(lab.kube).namespaced(lab.ns.name, 'run-15s', runFor('15s'));
    const workers = await Promise.all([lab.worker(config, 'watch-w1'), lab.worker(config, 'watch-w2')]);
    const started = await client.startTrainJob(startRequest({ runtime }));
    const ref = { namespace: started.namespace, name: started.name, uid: started.uid };
    await client.open(ref);
    const handle = await client.submitOperation('watch', ref);
    const phase = async () => (await handle.query<{ phase?: string }>('progress').catch(() => ({}) as { phase?: string })).phase;
    expect(await eventually(async () => (await phase()) === 'Running', 60_000, 200), 'the Watch shows Running').toBe(true);
    expect((await handle.describe()).raw.pendingActivities ?? [], 'no activity while it waits').toEqual([]);

    for (const w of workers) await w.kill();
    const complete = async () =>
      ((await readTrainJob(lab.kube, ref))?.status as { conditions?: Condition[] } | undefined)?.conditions?.find(
        (c) => c.type === TrainJobConditions.complete && c.status === 'True',
      );
    expect(await eventually(async () => (await complete()) !== undefined, 120_000, 500), 'the TrainJob completes with no worker up').toBe(true);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const tStart = Date.now();
    const third = await lab.worker(config, 'watch-w3');
    // A Watch that does not answer leaves its history's layout in the output (the workflow task
    // failures and the SDK flags each completed task recorded): the one time this failed in CI, a
    // replay error with the dev server's history gone with the run was all there was to go on.
    const answer = await Promise.race([handle.result(), new Promise<undefined>((resolve) => setTimeout(resolve, 120_000, undefined))]);
    if (answer === undefined) console.log('[watch-crash] no answer; history:', JSON.stringify(layoutOf((await handle.fetchHistory()).events ?? [])));
    expect(answer).toMatchObject({ ref, phase: 'Succeeded' });
    const recoveredMs = Date.now() - tStart;
    const events = (await lab.env.client.workflow.getHandle(operationWorkflowId('watch', ref)).fetchHistory()).events ?? [];
    const lastTask = events.filter((e) => e.workflowTaskCompletedEventAttributes).at(-1);
    expect(isIdentityOf(lastTask?.workflowTaskCompletedEventAttributes?.identity, third.pid), 'the new worker answered').toBe(true);
    lab.figure('watch crash', { workersKilled: workers.length, recoveredMs });
    await client.stop(ref);
    await third.stop();
  }, 300_000);
});
