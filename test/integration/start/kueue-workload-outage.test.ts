// Step 9 on the real Kueue with the API server's answers to the Workload checks missing: the time
// without an answer does not count against timeouts.workload, up to CallBound in all (docs/start.md
// step 9). The fault proxy fails only the checks' lists of Workloads; Kueue itself, talking to the
// API server directly, makes and admits the Workload meanwhile.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Kueue, Trainer } from '../../../src/model/constants.js';
import { DispatchError } from '../../../src/model/errors.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { freshKueueNamespace, type TestNamespace } from '../support/kube.js';
import { REAL_KUEUE_CONFIG, workloadOf } from '../support/operations.js';

const WORKLOAD_MS = 10_000;

describe('step 9 while the Workload checks go unanswered (real Kueue)', () => {
  let ns: TestNamespace;
  let proxy: FaultProxy;
  /** CallBound 30 s: an outage of 15 s is credited in full. */
  let h: DispatchHarness;
  /** CallBound 5 s: an outage of 30 s is credited 5 s, and the wait ends. */
  let short: DispatchHarness;
  beforeAll(async () => {
    ns = await freshKueueNamespace('kueue-outage');
    proxy = await startFaultProxy();
    const worker = (call: string) =>
      startDispatch({
        namespace: ns.name,
        access: proxy.accessFor({ ...proxy.accessFor(), namespace: ns.name }),
        config: { ...REAL_KUEUE_CONFIG, timeouts: { workload: `${WORKLOAD_MS / 1000}s`, call } },
        requestTimeoutMs: 1_000,
      });
    [h, short] = await Promise.all([worker('30s'), worker('5s')]);
  });
  afterEach(() => proxy?.clear());
  afterAll(async () => {
    await h?.close();
    await short?.close();
    await proxy?.close();
    await ns?.dispose();
  });

  /**
   * Fails every list and watch of the namespace's Workloads with a 500, as an API server away would,
   * and cuts the open watches, so the checks can neither list nor read a watch's copy.
   */
  const failWorkloadLists = () => {
    proxy.inject({
      method: 'GET',
      path: `/apis/${Kueue.group}/v1beta2/namespaces/${ns.name}/${Kueue.workloadPlural}`,
      times: Infinity,
      action: 'status-500',
    });
    proxy.cutConnections();
  };

  /** Waits until the Start's step 9 has begun. */
  const untilStep9 = (on: DispatchHarness, workflowId: string) =>
    expect.poll(() => on.calls.of(workflowId, 'waitForWorkload').length, { timeout: 60_000, interval: 200 }).toBeGreaterThan(0);

  it('an outage longer than timeouts.workload but within CallBound: the Start succeeds once the checks answer', async () => {
    const request = startRequest();
    failWorkloadLists();
    const handle = await h.client.submit(request);
    await untilStep9(h, handle.workflowId);
    const outageStart = Date.now();
    // Kueue makes the Workload meanwhile; the checks cannot see it.
    await new Promise((resolve) => setTimeout(resolve, WORKLOAD_MS + 5_000));
    proxy.clear();
    const result = await handle.result();
    expect(Date.now() - outageStart).toBeGreaterThan(WORKLOAD_MS);
    expect(result.mode).toBe('kueue');
    expect((await workloadOf(h.kube, ns.name, result.uid))?.metadata?.name).toBeDefined();
  }, 120_000);

  it('an outage past CallBound: ErrRejected at step 9, the reasons naming the time not counted, and the Start rolled back', async () => {
    const request = startRequest();
    failWorkloadLists();
    const error = await short.client.startTrainJob(request).then(
      () => expect.unreachable('the Start succeeded while its Workload could not be checked'),
      (e: unknown) => e as DispatchError,
    );
    proxy.clear();
    expect(error).toBeInstanceOf(DispatchError);
    expect(error.type).toBe('ErrRejected');
    expect(error.step).toBe(9);
    expect(error.reasons[0]).toContain(`was not right within ${WORKLOAD_MS / 1000}s (and 5s more while the API did not answer)`);
    expect(error.reasons.join('\n')).toContain('no answer');
    // Rolled back: the TrainJob Start made is deleted (by UID), the proxy answering again.
    const trainJobs = async () =>
      (
        (await h.kube.custom.listNamespacedCustomObject({
          group: Trainer.group,
          version: Trainer.version,
          namespace: ns.name,
          plural: Trainer.trainJobPlural,
        })) as { items: { metadata: { uid: string; deletionTimestamp?: string } }[] }
      ).items.filter((t) => t.metadata.uid === error.ref?.uid && !t.metadata.deletionTimestamp);
    expect(error.ref?.uid).toBeDefined();
    await expect.poll(trainJobs, { timeout: 30_000, interval: 500 }).toEqual([]);
  }, 120_000);
});
