// `dispatch-kubeflow worker` drains on SIGTERM (docs/contract.md §10, docs/deploy.md "Drain and
// readiness"): on the real stack, a Kueue-mode worker process gets SIGTERM while (a) a Start waits
// in step 9 for its Workload and (b) a Stop's delete is in flight. It stops polling (/readyz 503),
// lets both finish on itself (each activity started and completed by this worker, in its first
// attempt, nothing failed, timed out or cancelled), and exits 0 well within the drain grace.
//
// How the two are held in flight: the worker reaches the API server through the fault proxy. The
// step-9 checks read the namespace's Workloads through the worker's shared list and watch (label
// selector `kueue.x-k8s.io/job-uid`, or `job-uid in (...)` while the watch is down); those requests
// answer 500 (unanswered, which the wait rides out) until the test lets them through, after the
// SIGTERM. The real Kueue makes the Workload meanwhile. The Stop's DELETE reaches the API server
// 4 s late (a `delay` fault, under the 10 s request bound and the 8 s after which a workflow task heartbeats).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { temporal } from '@temporalio/proto';
import { KUEUE_SAMPLE_CHECK, KUEUE_SAMPLE_QUEUE } from '../../../dev/harness/samples.js';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { drainTimes } from '../../../src/core/drain.js';
import { Kueue, Labels, Trainer } from '../../../src/model/constants.js';
import { createDispatchWorker } from '../../../src/worker/dispatch-worker.js';
import { startRequest } from '../../support/requests.js';
import { PROVEN, workflowBundle, writeKubeconfig } from '../support/dispatch.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { freshKueueNamespace, kubeAccess, uniqueName, type TestNamespace } from '../support/kube.js';
import { temporalEnv } from '../support/temporal.js';
import { spawnWorkerCommand, writeWorkerConfig, type WorkerCommand } from '../support/worker-command.js';
import { processOfIdentity } from '../../support/worker-process.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Grace 40 + 2 × 10 + 10 = 70 s; the step-9 wait may last 40 s plus 10 s of unanswered checks. */
const TIMEOUTS = { workload: '40s', call: '10s' };
const DELETE_DELAY_MS = 4_000;

const taskQueue = uniqueName('drain');
const dir = mkdtempSync(join(tmpdir(), 'dispatch-drain-'));
let ns: TestNamespace;
let proxy: FaultProxy;
let worker: WorkerCommand;

const configLines = [
  'mode: kueue',
  'kueue:',
  `  queue: ${KUEUE_SAMPLE_QUEUE}`,
  `  admissionCheck: ${KUEUE_SAMPLE_CHECK}`,
  'timeouts:',
  `  workload: ${TIMEOUTS.workload}`,
  `  call: ${TIMEOUTS.call}`,
];

beforeAll(async () => {
  [ns, proxy] = await Promise.all([freshKueueNamespace('drain'), startFaultProxy()]);
  const bundle = join(dir, 'workflow-bundle.js');
  writeFileSync(bundle, (await workflowBundle()).code);
  const kubeconfig = writeKubeconfig(proxy.accessFor(kubeAccess('admin', ns.name)));
  worker = await spawnWorkerCommand({ config: writeWorkerConfig(ns.name, taskQueue, configLines, kubeconfig), env: { DISPATCH_WORKFLOW_BUNDLE: bundle } });
}, 180_000);

afterAll(async () => {
  if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await proxy?.close();
  await ns?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** The step-9 checks' lists and watches of the namespace's Workloads, not an operation's read of one TrainJob's. */
const stepNineWorkloadReads = (params: URLSearchParams) => {
  const selector = params.get('labelSelector') ?? '';
  return selector === Labels.kueueJobUid || selector.startsWith(`${Labels.kueueJobUid} in (`);
};

const activityEvents = (events: HistoryEvent[], type: string) => {
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type);
  const ids = new Set(scheduled.map((e) => String(e.eventId)));
  const of = (e: HistoryEvent) =>
    e.activityTaskStartedEventAttributes?.scheduledEventId ?? e.activityTaskCompletedEventAttributes?.scheduledEventId ?? undefined;
  return { scheduled, related: events.filter((e) => ids.has(String(of(e)))) };
};

/** Events that say an activity or workflow task did not end by itself. */
const UNFINISHED = [
  'activityTaskFailedEventAttributes',
  'activityTaskTimedOutEventAttributes',
  'activityTaskCancelRequestedEventAttributes',
  'activityTaskCanceledEventAttributes',
  'workflowTaskFailedEventAttributes',
  'workflowTaskTimedOutEventAttributes',
] as const;
const unfinished = (events: HistoryEvent[]) => events.filter((e) => UNFINISHED.some((key) => e[key])).map((e) => JSON.stringify(e));

it('on SIGTERM stops polling and lets a Start waiting in step 9 and a Stop in flight finish on itself, then exits 0 within the drain grace', async () => {
  await expect.poll(() => worker.output(), { timeout: 120_000, interval: 250 }).toMatch(/"preflight finished".*"start":true/);
  const identity = `${worker.child.pid}@${hostname()}`;
  const graceMs = drainTimes(TIMEOUTS).graceMs;
  const env = await temporalEnv();
  try {
    const client = new DispatchKubeflowClient(env.client, { namespace: ns.name, taskQueue });
    // The TrainJob the Stop will stop, started before any fault.
    const first = await client.startTrainJob(startRequest());

    // (a) A Start whose step-9 checks go unanswered: its Workload wait is in flight.
    const workloads = `/apis/${Kueue.group}/v1beta2/namespaces/${ns.name}/${Kueue.workloadPlural}`;
    proxy.inject({ method: 'GET', path: workloads, query: stepNineWorkloadReads, times: Infinity, action: 'status-500' });
    proxy.cutConnections();
    const start = await client.submit(startRequest());
    await expect
      .poll(async () => ((await start.describe()).raw.pendingActivities ?? []).map((a) => `${a.activityType?.name}:${String(a.state)}`), { timeout: 60_000, interval: 250 })
      .toContainEqual(expect.stringMatching(/^waitForWorkload:(2|PENDING_ACTIVITY_STATE_STARTED)$/));

    // (b) A Stop whose delete reaches the API server late.
    const trainJob = `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns.name}/${Trainer.trainJobPlural}/${first.name}`;
    proxy.inject({ method: 'DELETE', path: trainJob, action: 'delay', delayMs: DELETE_DELAY_MS });
    const stop = await client.submitOperation('stop', { namespace: ns.name, name: first.name, uid: first.uid });
    await expect.poll(() => proxy.requests.some((r) => r.method === 'DELETE' && r.fault === 'delay'), { timeout: 30_000, interval: 100 }).toBe(true);

    const signalled = Date.now();
    worker.child.kill('SIGTERM');
    // Draining: no longer polling, so not ready (and still alive).
    await expect
      .poll(() => fetch(`${worker.healthUrl}/readyz`).then((r) => r.json(), () => undefined), { timeout: 10_000, interval: 100 })
      .toMatchObject({ ready: false, reasons: expect.arrayContaining([expect.stringMatching(/^worker: the Temporal worker is (STOPPING|DRAINING|DRAINED), not RUNNING$/)]) });
    expect(worker.child.exitCode).toBeNull();
    // Let the step-9 checks through: Kueue made the Workload long ago.
    proxy.clear();
    const released = Date.now();

    expect(await worker.exited, worker.output().slice(-4_000)).toBe(0);
    const exitedAfterMs = Date.now() - signalled;
    process.stderr.write(`[drain] exited ${exitedAfterMs} ms after SIGTERM, ${Date.now() - released} ms after the step-9 checks were let through; grace ${graceMs} ms\n`);
    expect(exitedAfterMs).toBeLessThan(graceMs);
    expect(Date.now()).toBeGreaterThan(released);
    expect(worker.output()).toMatch(/"worker draining: polling stopped, in-flight activities finish".*"signal":"SIGTERM"/);
    expect(worker.output()).toMatch(/"worker stopped"/);

    // Each workflow's next task needs a worker that polls: one more on the task queue answers it,
    // so that both can be read to the end (a Stop the draining worker did not finish would show its
    // workflow tasks completed by this one).
    const finisher = await createDispatchWorker({
      config: parseConfig({
        namespace: ns.name,
        mode: 'kueue',
        kueue: { queue: KUEUE_SAMPLE_QUEUE, admissionCheck: KUEUE_SAMPLE_CHECK },
        timeouts: TIMEOUTS,
        temporal: { taskQueue },
        kubeconfig: writeKubeconfig(kubeAccess('admin', ns.name)),
      }),
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      client: env.client,
      workflowBundle: await workflowBundle(),
      admissionController: false,
    });
    finisher.gates.update(PROVEN);
    const finishing = finisher.worker.run();
    try {
      expect(await stop.result()).toMatchObject({ phase: 'Absent' });
      expect(await start.result()).toMatchObject({ mode: 'kueue', uid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    } finally {
      finisher.worker.shutdown();
      await finishing;
    }

    // The Stop finished on the draining worker: its one delete, every workflow task its own.
    expect(proxy.requests.filter((r) => r.method === 'DELETE' && r.path === trainJob)).toHaveLength(1);
    const stopEvents = (await stop.fetchHistory()).events ?? [];
    expect(unfinished(stopEvents)).toEqual([]);
    expect(new Set(stopEvents.filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => processOfIdentity(e.workflowTaskCompletedEventAttributes!.identity)))).toEqual(new Set([identity]));

    // The Start's Workload wait was started and completed by the draining worker, in its first attempt.
    const startEvents = (await start.fetchHistory()).events ?? [];
    const wait = activityEvents(startEvents, 'waitForWorkload');
    expect(wait.scheduled).toHaveLength(1);
    expect(wait.related.map((e) => [e.activityTaskStartedEventAttributes ? 'started' : 'completed', processOfIdentity(e.activityTaskStartedEventAttributes?.identity ?? e.activityTaskCompletedEventAttributes?.identity)])).toEqual([
      ['started', identity],
      ['completed', identity],
    ]);
    expect(wait.related[0]!.activityTaskStartedEventAttributes!.attempt).toBe(1);
    expect(unfinished(startEvents)).toEqual([]);
  } finally {
    await env.teardown();
  }
}, 400_000);
