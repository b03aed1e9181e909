// Start → Open → Watch on the real stack: the product's own Open lets the TrainJob run, the real
// Trainer, JobSet, Job controller, scheduler and KWOK run it, and Watch answers its outcome.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, type TestNamespace } from '../support/kube.js';

describe('plain mode: Start, Open, Watch', () => {
  let ns: TestNamespace;
  let h: DispatchHarness;
  beforeAll(async () => {
    ns = await freshNamespace('lc-plain');
    h = await startDispatch({ namespace: ns.name, config: {} });
  });
  afterAll(async () => {
    await h?.close();
    await ns?.dispose();
  });

  it('Open makes it Running, Watch ends Succeeded and the TrainJob is Complete', async () => {
    const started = await h.client.startTrainJob(startRequest());
    const ref = { namespace: started.namespace, name: started.name, uid: started.uid };
    const t0 = Date.now();
    const opened = await h.client.open(ref);
    const openMs = Date.now() - t0;
    expect(opened).toMatchObject({ ref, phase: 'Running', held: false });
    const outcome = await h.client.watch(ref);
    expect(outcome).toMatchObject({ ref, phase: 'Succeeded' });
    console.log(`[operations] plain: Open ${openMs} ms; outcome ${JSON.stringify(outcome)}`);
  });
});
