// Many Starts at once (issue: "Concurrency"): distinct requests plus duplicates of one of them, all
// submitted together to one worker process, with some distinct ones made to fail at read-back (the
// fault proxy answers 500 to the GET of their TrainJob until CallBound). Afterwards exactly one
// TrainJob per started job remains, each with one runtime copy it owns; the duplicates attached to
// one workflow run and share its TrainJob; the failed ones left nothing.
import { expect } from 'vitest';
import { trainJobName } from '../../../src/core/start/names.js';
import { parseGoDuration, toMillis } from '../../../src/model/duration.js';
import { Trainer } from '../../../src/model/constants.js';
import type { KubeObject } from '../../../src/model/kube.js';
import type { StartRequest } from '../../../src/model/request.js';
import { startRequest } from '../../support/requests.js';
import type { Fault } from '../../../dev/harness/fault-proxy.js';
import { eventually, type Lab } from './lab.js';
import { failureOf, outcomeOf, type Outcome } from './outcome.js';
import { procStatusKiB } from './worker-handle.js';

export interface ConcurrencyPlan {
  distinct: number;
  /** Extra submissions of the first distinct request. */
  duplicates: number;
  /** Distinct requests (not the duplicated one) whose read-back fails. */
  failing: number;
  /** CallBound: how long the failing read-backs are retried before the Start gives up. */
  call: string;
}

export interface ConcurrencyFigures {
  starts: number;
  distinct: number;
  duplicates: number;
  failing: number;
  call: string;
  started: number;
  failed: number;
  trainJobs: number;
  copies: number;
  /** From the first submission to the last Start's end. */
  elapsedMs: number;
  submitMs: number;
  /** Time to result of the Starts that succeeded. */
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  workerRssBeforeMiB: number;
  workerPeakRssMiB: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const mib = (kib: number | undefined) => Math.round(((kib ?? 0) / 1024) * 10) / 10;

function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function listed(lab: Lab, plural: string): Promise<KubeObject[]> {
  const list = (await lab.kube.custom.listNamespacedCustomObject({
    group: Trainer.group,
    version: Trainer.version,
    namespace: lab.ns.name,
    plural,
  })) as {
    items: KubeObject[];
  };
  return list.items;
}

/** Removes each fault `ms` after it first took a request (checked every 200 ms); the timer to clear when done. */
function liftAfterFirstHit(lab: Lab, faults: Fault[], ms: number): NodeJS.Timeout {
  const firstHit = new Map<Fault, number>();
  return setInterval(() => {
    for (const fault of faults) {
      if (fault.hits === 0) continue;
      const first = firstHit.get(fault) ?? Date.now();
      firstHit.set(fault, first);
      if (Date.now() - first >= ms) lab.proxy.remove(fault);
    }
  }, 200);
}

export async function runConcurrency(lab: Lab, plan: ConcurrencyPlan): Promise<ConcurrencyFigures> {
  const config = lab.config({ timeouts: { call: plan.call, workload: '5s' } });
  const requests: StartRequest[] = Array.from({ length: plan.distinct }, () => startRequest());
  const nameOf = (r: StartRequest) => trainJobName(r.job, r.submission);
  const duplicated = requests[0]!;
  const failing = new Set(requests.slice(1, 1 + plan.failing).map(nameOf));
  const faults = [...failing].map((name) =>
    lab.proxy.inject({
      method: 'GET',
      path: `${lab.base}/${Trainer.trainJobPlural}/${name}`,
      times: Infinity,
      action: 'status-500',
    }),
  );
  // The read-back gives up CallBound after its first read; the compensation then reads the
  // TrainJob before it deletes it (docs/contract.md §7), so each fault goes once its read-back is over.
  const lifting = liftAfterFirstHit(lab, faults, toMillis(parseGoDuration(plan.call)!) + 2_000);

  const worker = await lab.worker(config, 'concurrency');
  const rssBefore = worker.peakRssKiB();
  let peakSeen = rssBefore ?? 0;
  const sampler = setInterval(
    () => (peakSeen = Math.max(peakSeen, procStatusKiB(worker.pid, 'VmHWM') ?? 0)),
    250,
  );
  const client = lab.client(config);

  // Every submission at once, in a random order: the duplicates race their original.
  const submissions = shuffled([...requests, ...Array.from({ length: plan.duplicates }, () => duplicated)]);
  const t0 = Date.now();
  const handles = await Promise.all(submissions.map((request) => client.submit(request)));
  const submitMs = Date.now() - t0;
  const outcomes: Outcome[] = await Promise.all(handles.map((handle) => outcomeOf(handle, t0)));
  const elapsedMs = Date.now() - t0;
  clearInterval(sampler);
  clearInterval(lifting);
  const peak = Math.max(peakSeen, worker.peakRssKiB() ?? 0);
  await worker.stop();
  lab.proxy.clear();

  // The duplicates attached to one run of one workflow, and got its result.
  const dupRuns = new Set(
    handles.filter((_, i) => submissions[i] === duplicated).map((h) => h.firstExecutionRunId),
  );
  expect(dupRuns.size, 'every submission of the duplicated request attached to one workflow run').toBe(1);
  const dupUids = new Set(
    outcomes.filter((_, i) => submissions[i] === duplicated).map((o) => (o.ok ? o.result.uid : 'failed')),
  );
  expect([...dupUids]).toHaveLength(1);
  expect([...dupUids][0]).not.toBe('failed');

  const uidOf = new Map<string, string>();
  for (const [i, outcome] of outcomes.entries()) {
    const name = nameOf(submissions[i]!);
    if (failing.has(name)) {
      expect(failureOf(outcome)).toMatchObject({
        type: 'ErrRejected',
        step: 8,
        ref: { namespace: lab.ns.name, name },
      });
      continue;
    }
    expect(outcome.ok, `${name}: ${JSON.stringify(outcome.ok ? '' : outcome.error)}`).toBe(true);
    if (outcome.ok) uidOf.set(name, outcome.result.uid);
  }
  const expected = plan.distinct - plan.failing;
  expect(uidOf.size).toBe(expected);

  // Exactly one TrainJob per started job, each with one copy it owns; nothing of the failed ones.
  let trainJobs: KubeObject[] = [];
  let copies: KubeObject[] = [];
  await eventually(
    async () => {
      [trainJobs, copies] = await Promise.all([
        listed(lab, Trainer.trainJobPlural),
        listed(lab, Trainer.trainingRuntimePlural),
      ]);
      return trainJobs.length === expected && copies.length === expected;
    },
    60_000,
    500,
  );
  const summary = (objects: KubeObject[]) =>
    objects.map((o) => ({
      name: o.metadata?.name,
      uid: o.metadata?.uid,
      deleting: Boolean(o.metadata?.deletionTimestamp),
      owners: (o.metadata?.ownerReferences ?? []).map((r) => r.uid),
    }));
  const wantJobs = [...uidOf].map(([name, uid]) => ({ name, uid, deleting: false, owners: [] }));
  const byName = (a: { name?: string }, b: { name?: string }) => String(a.name).localeCompare(String(b.name));
  expect(summary(trainJobs).sort(byName)).toEqual(wantJobs.sort(byName));
  expect(
    summary(copies)
      .map(({ name, deleting, owners }) => ({ name, deleting, owners }))
      .sort(byName),
  ).toEqual([...uidOf].map(([name, uid]) => ({ name, deleting: false, owners: [uid] })).sort(byName));
  for (const name of uidOf.keys()) lab.ledger.expectStarted(name);

  const times = outcomes
    .filter((o) => o.ok)
    .map((o) => o.ms)
    .sort((a, b) => a - b);
  return {
    starts: submissions.length,
    distinct: plan.distinct,
    duplicates: plan.duplicates,
    failing: plan.failing,
    call: plan.call,
    started: outcomes.filter((o) => o.ok).length,
    failed: outcomes.filter((o) => !o.ok).length,
    trainJobs: trainJobs.length,
    copies: copies.length,
    elapsedMs,
    submitMs,
    p50Ms: percentile(times, 50),
    p95Ms: percentile(times, 95),
    maxMs: times.at(-1) ?? 0,
    workerRssBeforeMiB: mib(rssBefore),
    workerPeakRssMiB: mib(peak),
  };
}
