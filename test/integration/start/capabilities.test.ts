// TrainJobCapabilities on the real servers (docs/runtime-rules.md: "Capabilities(ctx, &spec) applies the same
// rules"): it reads the runtime a spec names and answers, or refuses naming every broken rule.
// ProcsPerNode is answered, never refused, and the rest of the spec is not its business.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExpectedRefusal } from '../support/refusals.js';
import { expectRefusal } from '../support/refusals.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { uniqueName } from '../support/kube.js';
import { bendRankRestart, breakEveryRule, everyRuleReasons, rule, weakened } from '../support/rule-reasons.js';
import { keyOf, type RuntimeRef } from '../support/runtimes.js';
import { dispatchSuite } from '../support/suite.js';

const suite = dispatchSuite('capabilities');

const KIND = { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' } as const;
const TORCH = { kind: 'ClusterTrainingRuntime', name: 'dispatch-torch' } as const;
const specOn = (runtime: RuntimeRef, rest: Record<string, unknown> = {}) => ({ ...rest, extensions: { 'kubeflow/RuntimeRef': runtime } });

/** Asserts the refusal as the raw failure (a caller by type name) and as the typed client's error. */
async function refusedCapabilities(harness: DispatchHarness, spec: Record<string, unknown>, expected: ExpectedRefusal): Promise<void> {
  const raw = harness.env.client.workflow.execute('TrainJobCapabilities', {
    taskQueue: harness.config.temporal.taskQueue,
    workflowId: `capabilities/${suite.ns.name}/${randomUUID()}`,
    args: [{ spec }],
  });
  await expectRefusal(raw, expected);
  await expect(harness.client.capabilities(spec)).rejects.toMatchObject({ type: expected.type, step: expected.step, reasons: expected.reasons });
}

describe('TrainJobCapabilities (docs/runtime-rules.md)', () => {
  it('answers ProcsPerNode no for a runtime with no ML policy (dispatch-kind)', async () => {
    expect(await suite.h.client.capabilities(specOn(KIND))).toEqual({ runtime: 'ClusterTrainingRuntime/dispatch-kind', procsPerNode: false });
  });

  it('answers ProcsPerNode no, and does not refuse, when the spec asks for it on such a runtime', async () => {
    expect(await suite.h.client.capabilities(specOn(KIND, { procsPerNode: 8 }))).toEqual({
      runtime: 'ClusterTrainingRuntime/dispatch-kind',
      procsPerNode: false,
    });
  });

  it('answers ProcsPerNode yes for a torch runtime (dispatch-torch)', async () => {
    expect(await suite.h.client.capabilities(specOn(TORCH, { procsPerNode: 8 }))).toEqual({
      runtime: 'ClusterTrainingRuntime/dispatch-torch',
      procsPerNode: true,
    });
  });

  it('checks the runtime, not the rest of the spec: no command, no Image and no nodes are answered', async () => {
    expect(await suite.h.client.capabilities(specOn(KIND, { command: [], nodes: 0 }))).toMatchObject({ procsPerNode: false });
  });

  it('refuses a runtime that breaks the rules with ErrUnsupported at step 3, naming every reason', async () => {
    const runtime = await suite.runtimes.cluster('caps-broken', breakEveryRule);
    await refusedCapabilities(suite.h, specOn(runtime), { type: 'ErrUnsupported', step: 3, reasons: everyRuleReasons(keyOf(runtime)) });
  });

  it('refuses a namespaced TrainingRuntime that breaks a rule', async () => {
    const runtime = await suite.runtimes.namespaced(suite.ns.name, 'caps-backoff', ({ job }) => (job.backoffLimit = 2));
    await refusedCapabilities(suite.h, specOn(runtime), { type: 'ErrUnsupported', step: 3, reasons: [rule.backoff(keyOf(runtime), 2)] });
  });

  it('refuses a runtime that does not exist with ErrUnsupported', async () => {
    const name = uniqueName('missing');
    await refusedCapabilities(suite.h, specOn({ kind: 'ClusterTrainingRuntime', name }), {
      type: 'ErrUnsupported',
      step: 2,
      reasons: [`runtime ClusterTrainingRuntime/${name} does not exist`],
    });
  });

  it('refuses a request without kubeflow/RuntimeRef with ErrInvalid', async () => {
    await refusedCapabilities(suite.h, { procsPerNode: 1 }, { type: 'ErrInvalid', step: 4, reasons: ['spec.extensions.kubeflow/RuntimeRef: is required'] });
  });

  it('refuses a runtime whose trainer job has an Ignore rule while allowRankRestart is off', async () => {
    const runtime = await suite.runtimes.cluster('caps-ignore', bendRankRestart);
    await refusedCapabilities(suite.h, specOn(runtime), { type: 'ErrUnsupported', step: 3, reasons: [rule.ignore(keyOf(runtime), 0)] });
  });

  describe('with allowRankRestart', () => {
    let lenient: DispatchHarness;
    beforeAll(async () => {
      lenient = await startDispatch({ namespace: suite.ns.name, config: { allowRankRestart: true } });
    });
    afterAll(async () => lenient?.close());

    it('answers for a waived runtime, carrying the weakened identity guarantee', async () => {
      const runtime = await suite.runtimes.cluster('caps-waived', bendRankRestart);
      expect(await lenient.client.capabilities(specOn(runtime))).toEqual({
        runtime: keyOf(runtime),
        procsPerNode: false,
        weakened: weakened('a podFailurePolicy Ignore rule'),
      });
    });

    it('names both when the trainer job states an Ignore rule and backoffLimitPerIndex', async () => {
      const runtime = await suite.runtimes.cluster(
        'caps-waived-both',
        ({ job }) => {
          job.podFailurePolicy = { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [3] } }] };
          job.completionMode = 'Indexed';
          job.backoffLimitPerIndex = 1;
        },
        'dispatch-torch',
      );
      expect(await lenient.client.capabilities(specOn(runtime))).toEqual({
        runtime: keyOf(runtime),
        procsPerNode: true,
        weakened: weakened('a podFailurePolicy Ignore rule and backoffLimitPerIndex'),
      });
    });
  });
});
