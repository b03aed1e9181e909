// History: the events one Start leaves (plain and Kueue mode), by type, what they imply of its
// cost (search attribute upserts, workflow tasks, local activities, worker activations:
// test/support/start-cost.ts), and how long a worker takes to replay one, over the Start
// histories this run made (cycled if there are fewer).
import type { WorkflowHandle } from '@temporalio/client';
import type { HistoryAndWorkflowId } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { applyKueueSamples } from '../dev/harness/samples.js';
import { startRequest } from '../test/support/requests.js';
import { runCost, type RunCost } from '../test/support/start-cost.js';
import type { BenchEnv } from './env.js';
import type { BenchSettings } from './settings.js';
import { fixed, ms, type Row } from './stats.js';

export const KUEUE = { mode: 'kueue', kueue: { queue: 'user-queue', admissionCheck: 'dispatch' } } as const;

type History = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>>;
type HistoryEvent = NonNullable<History['events']>[number];

/** "ActivityTaskScheduled", from the one *EventAttributes field an event carries. */
function eventType(event: HistoryEvent): string {
  const key = Object.keys(event).find((k) => k.endsWith('EventAttributes') && event[k as keyof HistoryEvent]);
  return key ? key[0]!.toUpperCase() + key.slice(1, -'EventAttributes'.length) : 'Unknown';
}

export interface EventCount {
  total: number;
  byType: Record<string, number>;
  cost: RunCost;
}

export function countEvents(history: History): EventCount {
  const byType: Record<string, number> = {};
  for (const event of history.events ?? []) byType[eventType(event)] = (byType[eventType(event)] ?? 0) + 1;
  return { total: history.events?.length ?? 0, byType, cost: runCost(history.events ?? []) };
}

export interface HistoryResult {
  plain: EventCount;
  kueue: EventCount;
  replay: { histories: number; distinct: number; totalMs: number; perHistoryMs: number; failed: number };
}

async function oneStartHistory(env: BenchEnv, kueue: boolean): Promise<EventCount> {
  const namespace = await env.namespace(kueue ? 'history-kueue' : 'history-plain');
  const config = env.config(namespace, kueue ? KUEUE : {});
  // The real Kueue lists dispatch's check on the Workload once the namespace has its LocalQueue.
  if (kueue) await applyKueueSamples(env.admin, [namespace]);
  const worker = await env.worker(`history-${kueue ? 'kueue' : 'plain'}`, config);
  try {
    const handle = await env.client(config).submit(startRequest());
    await handle.result();
    return countEvents(await handle.fetchHistory());
  } finally {
    await worker.stop();
  }
}

async function replay(env: BenchEnv, wanted: number): Promise<HistoryResult['replay']> {
  const found: HistoryAndWorkflowId[] = [];
  const listed = env.temporal.workflow.list({
    query: `WorkflowType = 'StartTrainJob' AND ExecutionStatus = 'Completed'`,
  });
  for await (const item of listed.intoHistories({ concurrency: 8 })) {
    found.push(item);
    if (found.length >= wanted) break;
  }
  if (found.length === 0)
    throw new Error('replay: no completed Start histories on the server (run latency or throughput first)');
  const histories = Array.from({ length: wanted }, (_, i) => {
    const item = found[i % found.length]!;
    return { workflowId: `${item.workflowId}#${i}`, history: item.history };
  });
  let failed = 0;
  const t0 = performance.now();
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: { codePath: env.bundlePath } },
    histories,
  )) {
    if (result.error) {
      failed++;
      if (failed === 1)
        console.error(`[bench] replay of ${result.workflowId} failed: ${result.error.message}`);
    }
  }
  const totalMs = performance.now() - t0;
  return { histories: wanted, distinct: found.length, totalMs, perHistoryMs: totalMs / wanted, failed };
}

const costOf = ({ cost }: EventCount) =>
  `${cost.upserts} upserts (${cost.workflowUpserts} the workflow's, at most ${cost.upsertsPerTaskMax} per workflow task), ` +
  `${cost.workflowTasks} workflow tasks, ` +
  `${cost.localActivities} local activities, ${cost.activations} activations`;

const breakdown = (c: EventCount) =>
  Object.entries(c.byType)
    .sort((a, b) => b[1] - a[1])
    .map(([type, n]) => `${type} ${n}`)
    .join(', ');

export async function measureHistory(
  env: BenchEnv,
  settings: BenchSettings,
): Promise<{ rows: Row[]; result: HistoryResult }> {
  const plain = await oneStartHistory(env, false);
  const kueue = await oneStartHistory(env, true);
  const replayed = await replay(env, settings.replayHistories);
  const result: HistoryResult = { plain, kueue, replay: replayed };
  const rows: Row[] = [
    {
      section: 'history',
      metric: 'events, plain Start',
      value: String(plain.total),
      target: '<= 40',
      met: plain.total <= 40,
    },
    { section: 'history', metric: '  by type', value: breakdown(plain) },
    {
      section: 'history',
      metric: 'search attribute upserts, plain Start',
      value: String(plain.cost.upserts),
      target: '<= 2',
      met: plain.cost.upserts <= 2,
    },
    { section: 'history', metric: '  cost, plain Start', value: costOf(plain) },
    { section: 'history', metric: 'events, Kueue Start', value: String(kueue.total) },
    { section: 'history', metric: '  by type', value: breakdown(kueue) },
    { section: 'history', metric: '  cost, Kueue Start', value: costOf(kueue) },
    {
      section: 'history',
      metric: 'replay time per history',
      value:
        `${ms(replayed.perHistoryMs)} (${replayed.histories} histories, ${replayed.distinct} distinct, ` +
        `${fixed(replayed.totalMs / 1000)} s in all, one replay worker${replayed.failed ? `, ${replayed.failed} FAILED` : ''})`,
    },
  ];
  return { rows, result };
}
