// A TrainJob started by the product runs to Complete on the real controllers: Trainer makes the
// JobSet, JobSet the Jobs, the Job controller the pods, the scheduler binds them to KWOK's simulated
// nodes and KWOK runs them. The test itself opens the job (dispatch's Open does not exist yet).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUEUE_SAMPLE_CHECK } from '../../../dev/harness/samples.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshKueueNamespace, freshNamespace, kubeConfig, type TestNamespace } from '../support/kube.js';
import { admitWhenReserved, finished, podsOfJob, REAL_KUEUE_CONFIG, removeGate, unsuspend } from '../support/lifecycle.js';

const KUEUE_CONFIG = REAL_KUEUE_CONFIG;

describe.each([
  { mode: 'plain', config: {}, namespace: () => freshNamespace('complete-plain') },
  { mode: 'kueue', config: KUEUE_CONFIG, namespace: () => freshKueueNamespace('complete-kueue') },
] as const)('a $mode Start runs to Complete on KWOK nodes', ({ mode, config, namespace }) => {
  let ns: TestNamespace;
  let h: DispatchHarness;
  beforeAll(async () => {
    ns = await namespace();
    h = await startDispatch({ namespace: ns.name, config });
  });
  afterAll(async () => {
    await h?.close();
    await ns?.dispose();
  });

  it(`Start, then ${mode === 'plain' ? 'spec.suspend: false' : 'the gate removed and the check Ready'}: the TrainJob reaches Complete, its pods Succeeded on KWOK nodes`, async () => {
    const request = startRequest();
    const t0 = Date.now();
    const result = await h.client.startTrainJob(request);
    const started = Date.now() - t0;
    if (mode === 'plain') {
      await unsuspend(h.kube, ns.name, result.name);
    } else {
      await removeGate(h.kube, ns.name, result.name);
      await admitWhenReserved(h.kube, ns.name, result.uid, KUEUE_SAMPLE_CHECK);
    }
    expect(await finished(h.kube, ns.name, result.name)).toBe('Complete');
    const pods = await podsOfJob(kubeConfig(), ns.name, request.job);
    expect(pods.length).toBe(request.spec.nodes);
    for (const pod of pods) {
      expect(pod.node).toMatch(/^kwok-node-/);
      expect(pod.phase).toBe('Succeeded');
    }
    console.log(`[complete] ${mode}: Start ${started} ms, Complete ${Date.now() - t0} ms after submitting; pods ${JSON.stringify(pods)}`);
  });
});
