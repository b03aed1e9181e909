// kill -9 of the worker during each operation after Start (docs/contract.md §9) and during Watch: a
// fault proxy holds the operation's write (or delete) unsent, the worker process is killed, the
// fault removed, and a new worker process must finish the operation with the answer it would have
// given, its interrupted call's last attempt run by the new worker. Watch is killed while it waits
// on a running job, holding no activity (docs/contract.md §9b); the new worker's watch wakes it.
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { Trainer } from '../../src/model/constants.js';
import type { Operation } from '../../src/contract/names.js';
import type { TrainJobRef } from '../../src/model/operations.js';
import type { DispatchKubeflowClient } from '../../src/client/dispatch-client.js';
import { startRequest } from '../support/requests.js';
import type { FaultRule } from '../integration/support/fault-proxy.js';
import { runtimeFixtures } from '../integration/support/runtimes.js';
import { runFor } from '../integration/operations/support.js';
import { lastAttempt } from './support/crash-points.js';
import { eventually, reliabilityLab, type Lab } from './support/lab.js';
import { isIdentityOf } from '../support/worker-process.js';

/** CallBound 40 s, as the Start crash points: a lost worker's workflow task times out in 10 s. */
const CONFIG = { timeouts: { call: '40s', workload: '5s' } };

interface OperationPoint {
  op: Operation;
  /** What the TrainJob goes through before the operation. */
  before: (client: DispatchKubeflowClient, ref: TrainJobRef) => Promise<unknown>;
  /** The request held unsent while the worker is killed. */
  hold: (lab: Lab, ref: TrainJobRef) => FaultRule;
  activity: string;
  answer: Record<string, unknown>;
}

const trainJobPath = (lab: Lab, ref: TrainJobRef) => `${lab.base}/${Trainer.trainJobPlural}/${ref.name}`;

const POINTS: OperationPoint[] = [
  {
    op: 'open',
    before: async () => undefined,
    hold: (lab, ref) => ({ method: 'PATCH', path: trainJobPath(lab, ref), action: 'hang' }),
    activity: 'applyWrite',
    answer: { phase: 'Running', held: false },
  },
  {
    op: 'hold',
    before: (client, ref) => client.open(ref),
    hold: (lab, ref) => ({ method: 'PATCH', path: trainJobPath(lab, ref), action: 'hang' }),
    activity: 'applyWrite',
    answer: { held: true },
  },
  {
    op: 'release',
    before: (client, ref) => client.hold(ref),
    hold: (lab, ref) => ({ method: 'PATCH', path: trainJobPath(lab, ref), action: 'hang' }),
    activity: 'applyWrite',
    answer: { phase: 'Running', held: false },
  },
  {
    op: 'stop',
    before: async () => undefined,
    hold: (lab, ref) => ({ method: 'DELETE', path: trainJobPath(lab, ref), action: 'hang' }),
    activity: 'deleteTrainJob',
    answer: { phase: 'Absent' },
  },
];

describe('worker crash: kill -9 during an operation after Start, a new worker process finishes it', () => {
  const lab = reliabilityLab('op-crash');

  for (const point of POINTS) {
    it(`${point.op}: killed while its ${point.activity} is held unsent`, async () => {
      const config = lab.config(CONFIG);
      const client = lab.client(config);
      // The job runs for two minutes once opened, so that a Hold acts on a running job, not an ended one.
      const runtime = await runtimeFixtures(lab.kube).namespaced(lab.ns.name, `run-${point.op}`, runFor('120s'));
      const first = await lab.worker(config, `${point.op}-w1`);
      const started = await client.startTrainJob(startRequest({ runtime }));
      const ref = { namespace: started.namespace, name: started.name, uid: started.uid };
      await point.before(client, ref);
      const fault = lab.proxy.inject(point.hold(lab, ref));
      const handle: WorkflowHandle = await client.submitOperation(point.op, ref);
      expect(await eventually(() => fault.hits > 0, 60_000, 20), `the ${point.op} reached its write`).toBe(true);
      const tKill = Date.now();
      await first.kill();
      lab.proxy.clear();
      const second = await lab.worker(config, `${point.op}-w2`);
      const answer = await handle.result();
      expect(answer).toMatchObject({ ref, ...point.answer });
      const last = lastAttempt((await handle.fetchHistory()).events ?? [], point.activity);
      expect(isIdentityOf(last?.identity, second.pid), `${point.activity} last ran on ${last?.identity}`).toBe(true);
      lab.figure('operation crash', { op: point.op, recoveredMs: Date.now() - tKill, attempt: last?.attempt });
      await client.stop(ref);
      await second.stop();
    }, 180_000);
  }

  it('watch: killed while it waits on a running job (no activity held); the new worker answers Succeeded', async () => {
    const config = lab.config(CONFIG);
    const client = lab.client(config);
    const runtime = await runtimeFixtures(lab.kube).namespaced(lab.ns.name, 'run-20s', runFor('20s'));
    const first = await lab.worker(config, 'watch-w1');
    const started = await client.startTrainJob(startRequest({ runtime }));
    const ref = { namespace: started.namespace, name: started.name, uid: started.uid };
    await client.open(ref);
    const handle = await client.submitOperation('watch', ref);
    const phase = async () => (await handle.query<{ phase?: string }>('progress').catch(() => ({}) as { phase?: string })).phase;
    expect(await eventually(async () => (await phase()) === 'Running', 30_000, 100), 'the Watch waits on a running job').toBe(true);
    const tKill = Date.now();
    await first.kill();
    const second = await lab.worker(config, 'watch-w2');
    expect(await handle.result()).toMatchObject({ ref, phase: 'Succeeded' });
    // The new worker's watch (or its first list, if the job ended before it listed) woke the Watch.
    const lastTask = ((await handle.fetchHistory()).events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).at(-1);
    const identity = lastTask?.workflowTaskCompletedEventAttributes?.identity ?? '';
    expect(isIdentityOf(identity, second.pid), `the Watch last ran on ${identity}`).toBe(true);
    lab.figure('operation crash', { op: 'watch', recoveredMs: Date.now() - tKill });
    await client.stop(ref);
    await second.stop();
  }, 240_000);
});
