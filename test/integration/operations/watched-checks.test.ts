// Watch as docs/contract.md §9b says, through the fault proxy in front of the real API server with
// the real Trainer behind it: while it waits a Watch holds no activity and makes no request of its
// own (the worker's one watch of the namespace's TrainJobs is all); a Stop is answered through a
// wake, long before the 15-minute timer; after a reset connection the worker lists again and wakes
// the Watches of what changed meanwhile; and a worker that cannot watch at all (every watch request
// reset, as a Role without `watch` refuses it) still answers, from its lists every few seconds.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { operationWorkflowId } from '../../../src/contract/names.js';
import { RETRY_MS } from '../../../src/kube/watched-lists.js';
import { Trainer } from '../../../src/model/constants.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import type { FaultProxy } from '../../../dev/harness/fault-proxy.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { freshNamespace, type TestNamespace } from '../support/kube.js';
import { until } from '../support/operations.js';
import { refOf } from './support.js';

let ns: TestNamespace;
let proxy: FaultProxy;
let h: DispatchHarness;

beforeAll(async () => {
  ns = await freshNamespace('lc-watched');
  proxy = await startFaultProxy();
  h = await startDispatch({ namespace: ns.name, access: proxy.accessFor(), config: {} });
});
afterAll(async () => {
  await h?.close();
  await proxy?.close();
  await ns?.dispose();
});

const trainJobs = () =>
  `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns.name}/${Trainer.trainJobPlural}`;
const requests = (watch: boolean) =>
  proxy.requests.filter((r) => r.method === 'GET' && r.path === trainJobs() && r.watch === watch);
/** Reads of one TrainJob by name: a Watch's own reads. */
const readsOf = (ref: TrainJobRef) =>
  proxy.requests.filter((r) => r.method === 'GET' && r.path === `${trainJobs()}/${ref.name}`).length;
const handleOf = (ref: TrainJobRef) => h.env.client.workflow.getHandle(operationWorkflowId('watch', ref));
const wakes = async (result: string) =>
  (await h.worker.metrics.watchWakes.get()).values.find((v) => v.labels.result === result)?.value ?? 0;

it('Watches of gated TrainJobs hold no activity and make no request while they wait; a Stop is answered through a wake; after a reset connection the worker lists again and wakes what changed', async () => {
  const refs = (await Promise.all([1, 2, 3].map(() => h.client.startTrainJob(startRequest())))).map(refOf);
  const outcomes = refs.map((ref) => h.client.watch(ref));
  for (const ref of refs)
    await until(
      'the Watch to show Gated',
      30_000,
      async () =>
        (
          (await handleOf(ref)
            .query<{ phase?: string }>('progress')
            .catch(() => ({}))) as { phase?: string }
        ).phase === 'Gated' || undefined,
    );
  await until('the worker’s watch of the TrainJobs', 30_000, async () =>
    requests(true).length > 0 ? true : undefined,
  );
  expect(requests(true)[0]!.query).toContain('labelSelector=');

  for (const ref of refs)
    expect((await handleOf(ref).describe()).raw.pendingActivities ?? [], 'no activity while waiting').toEqual(
      [],
    );
  // Changes made during the Starts are changes too: let their wakes land and their reads end first
  // (a loaded machine delivered one after the Watches showed Gated, read as a read with no change).
  await h.worker.waker?.idle();
  await sleep(2_000);
  const readsBefore = refs.map(readsOf);
  const listsBefore = requests(false).length;
  await sleep(9_000);
  expect(refs.map(readsOf), 'no read of its own while nothing changes').toEqual(readsBefore);
  expect(requests(false).length).toBe(listsBefore);

  // The timer is 15 minutes: an answer within seconds is a wake's.
  const t0 = Date.now();
  await h.client.stop(refs[0]!);
  expect(await outcomes[0]).toMatchObject({ ref: refs[0], phase: 'Absent' });
  console.log(`[watch] Absent ${Date.now() - t0} ms after the Stop was asked for`);
  expect(await wakes('signalled')).toBeGreaterThan(0);

  // A reset, and a Stop while the worker may not be watching: its next list finds the TrainJob gone.
  const watchesBefore = requests(true).length;
  proxy.cutConnections();
  const t1 = Date.now();
  await h.client.stop(refs[1]!);
  expect(await outcomes[1]).toMatchObject({ ref: refs[1], phase: 'Absent' });
  console.log(`[watch] after a reset connection: Absent ${Date.now() - t1} ms after the Stop was asked for`);
  await until('a new watch', RETRY_MS + 15_000, async () =>
    requests(true).length > watchesBefore ? true : undefined,
  );

  await h.client.stop(refs[2]!);
  expect(await outcomes[2]).toMatchObject({ ref: refs[2], phase: 'Absent' });
}, 180_000);

it('a worker that cannot watch (every watch request reset) still answers: it lists every few seconds and wakes what changed', async () => {
  const refused = proxy.inject({
    method: 'GET',
    path: trainJobs(),
    watch: true,
    times: Infinity,
    action: 'reset',
  });
  // Drop the watch in step, as a Role losing `watch` takes effect at the next watch request.
  h.worker.checks?.resync();
  try {
    const ref = refOf(await h.client.startTrainJob(startRequest()));
    await h.client.open(ref);
    const t0 = Date.now();
    const outcome = await h.client.watch(ref);
    expect(outcome).toMatchObject({ ref, phase: 'Succeeded' });
    console.log(`[watch] without watch: Succeeded ${Date.now() - t0} ms after the Watch began`);
    expect(refused.hits).toBeGreaterThan(0);
    expect(requests(false).length).toBeGreaterThan(1);
  } finally {
    proxy.clear();
  }
}, 180_000);
