// Watch's checks read one watch of the namespace's TrainJobs (src/kube/watched-lists.ts) once it
// is in step, and list (batched) only while it is not: seen through the fault proxy in front of the
// real API server, with the real Trainer behind it. A Stop is seen through the watch; a reset
// connection sends the checks back to lists until a new list and watch are in step.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RETRY_MS } from '../../../src/kube/watched-lists.js';
import { Trainer } from '../../../src/model/constants.js';
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

const trainJobs = () => `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns.name}/${Trainer.trainJobPlural}`;
const requests = (watch: boolean) => proxy.requests.filter((r) => r.method === 'GET' && r.path === trainJobs() && r.watch === watch);

it('Watches of gated TrainJobs check through one watch, with no list while it is in step; a Stop is seen through it; a reset connection falls back to lists, then watches again', async () => {
  const refs = (await Promise.all([1, 2, 3].map(() => h.client.startTrainJob(startRequest())))).map(refOf);
  const outcomes = refs.map((ref) => h.client.watch(ref));

  await until('the watch of the TrainJobs', 30_000, async () => (requests(true).length > 0 ? true : undefined));
  expect(requests(true)[0]!.query).toContain('labelSelector=');
  // In step: three Watches checking every 3 s make no list at all for 9 s.
  await sleep(3_000);
  const listsBefore = requests(false).length;
  await sleep(9_000);
  expect(requests(false).length).toBe(listsBefore);

  await h.client.stop(refs[0]!);
  expect(await outcomes[0]).toMatchObject({ ref: refs[0], phase: 'Absent' });
  expect(requests(false).length).toBe(listsBefore);

  // A reset: the checks list (batched) until, RETRY_MS later, a new list and watch are in step.
  const watchesBefore = requests(true).length;
  proxy.cutConnections();
  await until('checks listing again', 15_000, async () => (requests(false).length > listsBefore ? true : undefined));
  await until('a new watch', RETRY_MS + 15_000, async () => (requests(true).length > watchesBefore ? true : undefined));
  await sleep(3_000);
  const listsAfter = requests(false).length;
  await sleep(6_000);
  expect(requests(false).length).toBe(listsAfter);

  for (const ref of refs.slice(1)) await h.client.stop(ref);
  for (const [i, outcome] of outcomes.slice(1).entries())
    expect(await outcome).toMatchObject({ ref: refs[i + 1], phase: 'Absent' });
}, 120_000);
