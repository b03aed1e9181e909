// kill -9 of every worker while a Watch waits (docs/contract.md §9b): two worker processes serve
// the task queue, each with its waker; the Watch shows Running and holds no activity; both are
// killed; the TrainJob completes while no worker is up; a worker process started afterwards
// answers Succeeded, woken by its first list (the TrainJob ended within watchRecheck), long
// before the Watch's timer (an hour here), and it is that worker that completes the Watch.
import { readFileSync } from 'node:fs';
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

/**
 * What there is to go on when the Watch has not answered, in the assertion's message (CI keeps the
 * failures' summary, not the tests' output): its history's layout, its pending workflow task (on
 * which queue, which attempt, since when) and the end of the third worker's log.
 */
async function whyNoAnswer(handle: WorkflowHandle, logFile: string): Promise<string> {
  const layout = JSON.stringify(layoutOf((await handle.fetchHistory()).events ?? []));
  const pending = (await handle.describe()).raw.pendingWorkflowTask;
  const task = pending
    ? JSON.stringify({ state: pending.state, attempt: pending.attempt, scheduled: pending.scheduledTime?.seconds?.toString(), started: pending.startedTime?.seconds?.toString() })
    : 'none';
  const log = readFileSync(logFile, 'utf8').split('\n').slice(-80).join('\n');
  return `no answer within 120 s; history: ${layout}; pending workflow task: ${task}; now ${Math.floor(Date.now() / 1000)}; the third worker's log ends:\n${log}`;
}

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
    // A Watch that does not answer fails with its history's layout (the workflow task failures and
    // the SDK flags each completed task recorded), its pending task and the new worker's log: twice
    // in CI it did not answer, with nothing kept to go on (the dev server's history gone with the run).
    const answer = await Promise.race([handle.result(), new Promise<undefined>((resolve) => setTimeout(resolve, 120_000, undefined))]);
    expect(answer, answer === undefined ? await whyNoAnswer(handle, third.logFile) : 'the answer').toMatchObject({ ref, phase: 'Succeeded' });
    const recoveredMs = Date.now() - tStart;
    const events = (await lab.env.client.workflow.getHandle(operationWorkflowId('watch', ref)).fetchHistory()).events ?? [];
    const lastTask = events.filter((e) => e.workflowTaskCompletedEventAttributes).at(-1);
    expect(isIdentityOf(lastTask?.workflowTaskCompletedEventAttributes?.identity, third.pid), 'the new worker answered').toBe(true);
    lab.figure('watch crash', { workersKilled: workers.length, recoveredMs });
    await client.stop(ref);
    await third.stop();
  }, 300_000);
});
