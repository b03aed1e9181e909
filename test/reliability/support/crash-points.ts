// kill -9 of the worker at each step of a Start (issue: "Worker crash"). Each crash point holds the
// Start at one place with the fault proxy (a request held unsent: the worker dies between two
// activities; or sent, acted on, and its answer held: the worker dies after the API acted but
// before it learnt so), or lets it run into the Kueue wait, then kills the worker process with
// SIGKILL, removes the fault, and starts a new worker process, which must finish the Start. The
// invariant is then checked on the cluster (outcome.ts), and the history says which worker ran
// the interrupted activity's last attempt.
import type { WorkflowHandle } from '@temporalio/client';
import { expect } from 'vitest';
import { Kueue, Trainer } from '../../../src/model/constants.js';
import type { ErrorType } from '../../../src/model/errors.js';
import { trainJobName } from '../../../src/core/start/names.js';
import { startRequest } from '../../support/requests.js';
import { FakeKueue, type KueueBehaviour } from '../../integration/support/fake-kueue.js';
import type { FaultRule, ProxiedRequest } from '../../integration/support/fault-proxy.js';
import { eventually, type Lab, type LabConfig } from './lab.js';
import { expectJobObjects, failureOf, outcomeOf } from './outcome.js';
import { isIdentityOf } from '../../support/worker-process.js';

export interface CrashPoint {
  /** Short id, used in worker log names. */
  id: string;
  /** Where the kill lands, in words (the test's name). */
  where: string;
  /**
   * The activity the kill interrupts, whose retry the new worker must run: steps 2 and 5, and 7 and
   * 8, make their first attempt in one local activity each (patch start-folded-calls).
   */
  activity: string;
  config: LabConfig;
  /** The fault that holds the Start at the crash point (none for the Kueue wait). */
  hold?: (lab: Lab, name: string) => FaultRule;
  /** When to kill, from the proxy's log of this Start; default: once the hold has taken a request. */
  due?: (requests: ProxiedRequest[], lab: Lab) => boolean;
  kueue?: KueueBehaviour;
  /** "started", or the failure the Start must end with. */
  expect: 'started' | { type: ErrorType; step: number };
}

/** CallBound 40 s: the lost worker is noticed after 10 s (a quarter), leaving room for the new one to start. */
const PLAIN: LabConfig = { timeouts: { call: '40s', workload: '5s' } };
const KUEUE = { mode: 'kueue', kueue: { queue: 'user-queue', admissionCheck: 'dispatch' } } as const;

const runtimePath = `/apis/${Trainer.group}/${Trainer.version}/${Trainer.clusterTrainingRuntimePlural}/dispatch-kind`;
const copies = (lab: Lab) => `${lab.base}/${Trainer.trainingRuntimePlural}`;
const trainJobs = (lab: Lab) => `${lab.base}/${Trainer.trainJobPlural}`;

export const CRASH_POINTS: readonly CrashPoint[] = [
  {
    id: 'read-runtime',
    where: 'step 2: reading the source runtime (the request held unsent)',
    activity: 'readRuntimeThenCopy',
    config: PLAIN,
    hold: () => ({ method: 'GET', path: runtimePath, action: 'hang' }),
    expect: 'started',
  },
  {
    id: 'before-copy',
    where: 'between readRuntime and createRuntimeCopy (the create held unsent)',
    activity: 'readRuntimeThenCopy',
    config: PLAIN,
    hold: (lab) => ({ method: 'POST', path: copies(lab), action: 'hang' }),
    expect: 'started',
  },
  {
    id: 'copy-landed',
    where: 'step 5: the runtime copy created, its answer held from the worker',
    activity: 'readRuntimeThenCopy',
    config: PLAIN,
    hold: (lab) => ({ method: 'POST', path: copies(lab), action: 'hold-response' }),
    expect: 'started',
  },
  {
    id: 'before-trainjob',
    where: 'between createRuntimeCopy and createTrainJob (the create held unsent)',
    activity: 'createTrainJob',
    config: PLAIN,
    hold: (lab) => ({ method: 'POST', path: trainJobs(lab), action: 'hang' }),
    expect: 'started',
  },
  {
    id: 'trainjob-landed',
    where: 'step 6: the TrainJob created, its answer held from the worker',
    activity: 'createTrainJob',
    config: PLAIN,
    hold: (lab) => ({ method: 'POST', path: trainJobs(lab), action: 'hold-response' }),
    expect: 'started',
  },
  {
    id: 'before-owner',
    where: 'between createTrainJob and setOwner (the patch held unsent)',
    activity: 'setOwnerThenReadBack',
    config: PLAIN,
    hold: (lab, name) => ({ method: 'PATCH', path: `${copies(lab)}/${name}`, action: 'hang' }),
    expect: 'started',
  },
  {
    id: 'owner-landed',
    where: "step 7: the copy's owner set, the answer held from the worker",
    activity: 'setOwnerThenReadBack',
    config: PLAIN,
    hold: (lab, name) => ({ method: 'PATCH', path: `${copies(lab)}/${name}`, action: 'hold-response' }),
    expect: 'started',
  },
  {
    id: 'before-readback',
    where: 'between setOwner and readBack (the read held unsent)',
    activity: 'setOwnerThenReadBack',
    config: PLAIN,
    hold: (lab, name) => ({ method: 'GET', path: `${trainJobs(lab)}/${name}`, action: 'hang' }),
    expect: 'started',
  },
  {
    id: 'readback-answered',
    where: 'step 8: the TrainJob read, the answer held from the worker',
    activity: 'setOwnerThenReadBack',
    config: PLAIN,
    hold: (lab, name) => ({ method: 'GET', path: `${trainJobs(lab)}/${name}`, action: 'hold-response' }),
    expect: 'started',
  },
  {
    id: 'kueue-wait',
    where: 'step 9: inside the Kueue wait, after two checks (the Workload comes 20 s after the TrainJob)',
    activity: 'waitForWorkload',
    config: { ...KUEUE, timeouts: { call: '40s', workload: '60s' } },
    kueue: { delayMs: 20_000 },
    due: (requests) =>
      requests.filter((r) => r.path.endsWith(`/${Kueue.workloadPlural}`) && r.status === 200).length >= 2,
    expect: 'started',
  },
  {
    id: 'compensation-before-delete',
    where: 'compensation after step 9 failed: the delete of the TrainJob held unsent',
    activity: 'stopTrainJob',
    config: { ...KUEUE, timeouts: { call: '40s', workload: '3s' } },
    kueue: { never: true },
    hold: (lab, name) => ({ method: 'DELETE', path: `${trainJobs(lab)}/${name}`, action: 'hang' }),
    expect: { type: 'ErrRejected', step: 9 },
  },
  {
    id: 'compensation-delete-landed',
    where: 'compensation after step 9 failed: the TrainJob deleted, the answer held from the worker',
    activity: 'stopTrainJob',
    config: { ...KUEUE, timeouts: { call: '40s', workload: '3s' } },
    kueue: { never: true },
    hold: (lab, name) => ({ method: 'DELETE', path: `${trainJobs(lab)}/${name}`, action: 'hold-response' }),
    expect: { type: 'ErrRejected', step: 9 },
  },
];

/** The two crash points npm test runs (test/integration/reliability); the reliability project runs them all. */
export const QUICK_CRASH_POINTS = ['trainjob-landed', 'compensation-delete-landed'];

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** The activity type a local activity's marker records, if the event is one. */
function localActivityType(event: HistoryEvent): string | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return undefined;
  const data = marker.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string; activityType?: string };
  return parsed.activity_type ?? parsed.activityType;
}

/**
 * The last attempt of an activity type in a history: its attempt number and the worker that ran it.
 * An activity task names both in its ActivityTaskStarted event. A local activity runs inside a
 * workflow task, and a worker lost mid-call takes the attempt with it: the workflow task times out
 * and the new worker runs the call again from the start. So for a local activity the worker is the
 * one that completed the workflow task recording its marker, and the attempt is one more than the
 * workflow tasks lost before that marker.
 */
export function lastAttempt(
  events: HistoryEvent[],
  activityType: string,
): { attempt: number; identity: string } | undefined {
  const byId = (id: unknown) => events.find((e) => String(e.eventId) === String(id));
  const scheduled = events
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activityType || localActivityType(e) === activityType)
    .at(-1);
  if (!scheduled) return undefined;
  const marker = scheduled.markerRecordedEventAttributes;
  if (marker) {
    const completed = byId(marker.workflowTaskCompletedEventId)?.workflowTaskCompletedEventAttributes;
    const lost = events.filter(
      (e) => Number(e.eventId) < Number(scheduled.eventId) && (e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes),
    ).length;
    return completed ? { attempt: 1 + lost, identity: completed.identity ?? '' } : undefined;
  }
  const started = events.find(
    (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled.eventId),
  );
  const attributes = started?.activityTaskStartedEventAttributes;
  return attributes ? { attempt: attributes.attempt ?? 0, identity: attributes.identity ?? '' } : undefined;
}

export interface CrashFigures {
  point: string;
  outcome: string;
  /** From the kill to the Start's end. */
  recoveredMs: number;
  /** From submitting to the kill. */
  killedAfterMs: number;
  newWorkerStartMs: number;
  /** The interrupted activity's last attempt, and whether the new worker ran it. */
  attempt: number;
  byNewWorker: boolean;
  /** TrainJob creates the API server answered 201 to, for this Start (at most one). */
  trainJobsCreated: number;
  /** How long the cluster took to show the invariant after the Start ended (garbage collector). */
  settledMs: number;
}

export async function runCrashPoint(lab: Lab, point: CrashPoint): Promise<CrashFigures> {
  const config = lab.config(point.config);
  const kueue = point.kueue
    ? await FakeKueue.start({ kubeConfig: lab.kubeConfig, config, defaults: point.kueue })
    : undefined;
  try {
    const request = startRequest();
    const name = trainJobName(request.job, request.submission);
    const rule = point.hold?.(lab, name);
    const fault = rule ? lab.proxy.inject(rule) : undefined;
    const first = await lab.worker(config, `${point.id}-w1`);
    const from = lab.proxy.requests.length;
    const mine = () => lab.proxy.requests.slice(from);
    const handle = await lab.client(config).submit(request);
    const t0 = Date.now();
    const due =
      point.due ??
      ((requests: ProxiedRequest[]) =>
        (fault?.hits ?? 0) > 0 &&
        requests.some(
          (r) =>
            r.fault === rule?.action && (rule?.action !== 'hold-response' || r.upstreamStatus !== undefined),
        ));
    expect(
      await eventually(() => due(mine(), lab), 60_000, 20),
      `the Start reached the crash point: ${point.where}`,
    ).toBe(true);
    const tKill = Date.now();
    await first.kill();
    lab.proxy.clear();
    const second = await lab.worker(config, `${point.id}-w2`);
    const outcome = await outcomeOf(handle, tKill);

    if (point.expect === 'started') expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    else expect(failureOf(outcome)).toMatchObject({ ...point.expect, ref: { namespace: lab.ns.name, name } });
    const { settledMs } = await expectJobObjects(lab.kube, lab.ns.name, request.job, outcome);
    if (outcome.ok) lab.ledger.expectStarted(name);

    const events = (await handle.fetchHistory()).events ?? [];
    const last = lastAttempt(events, point.activity);
    expect(last, `the history holds a started ${point.activity}`).toBeDefined();
    const byNewWorker = isIdentityOf(last!.identity, second.pid);
    expect(
      byNewWorker,
      `${point.activity}'s last attempt ran on the new worker (pid ${second.pid}), not ${last!.identity}`,
    ).toBe(true);
    expect(last!.attempt).toBeGreaterThanOrEqual(2);
    const trainJobsCreated = mine().filter(
      (r) => r.method === 'POST' && r.path === trainJobs(lab) && r.upstreamStatus === 201,
    ).length;
    expect(trainJobsCreated).toBeLessThanOrEqual(1);
    await second.stop();
    const figures: CrashFigures = {
      point: point.id,
      outcome: outcome.ok ? 'started' : `${failureOf(outcome).type} at step ${failureOf(outcome).step}`,
      recoveredMs: outcome.ms,
      killedAfterMs: tKill - t0,
      newWorkerStartMs: second.startMs,
      attempt: last!.attempt,
      byNewWorker,
      trainJobsCreated,
      settledMs,
    };
    lab.figure('worker crash', { ...figures });
    return figures;
  } finally {
    await kueue?.stop();
  }
}
