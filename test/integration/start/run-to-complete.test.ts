// A TrainJob started by the product runs to Complete on the real controllers: Trainer makes the
// JobSet, JobSet the Jobs, the Job controller the pods, the scheduler binds them to KWOK's simulated
// nodes and KWOK runs them. dispatch's Open lets it run; in Kueue mode the worker's admission check
// controller sets the check Ready once Kueue reserved quota (docs/contract.md §9).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshKueueNamespace, freshNamespace, kubeConfig, type TestNamespace } from '../support/kube.js';
import { finished, podsOfJob, REAL_KUEUE_CONFIG } from '../support/operations.js';

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

  it(`Start, then Open (${mode === 'plain' ? 'spec.suspend: false' : "the gate removed; the worker's controller sets the check Ready"}): the TrainJob reaches Complete, its pods Succeeded on KWOK nodes`, async () => {
    const request = startRequest();
    const t0 = Date.now();
    const result = await h.client.startTrainJob(request);
    const started = Date.now() - t0;
    await h.client.open({ namespace: ns.name, name: result.name, uid: result.uid });
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
