// ProbeBackend on the real servers (docs/contract.md §8; docs/start.md, "The preflight probe"): reach, write and
// start proven in order, the probe Start stopped and gone; a restricted identity leaves the write
// gate unproven, naming each missing permission, and Start then refuses with ErrReadOnly; a probe
// Start whose create goes unanswered (fault proxy) leaves nothing behind.
import { isDeepStrictEqual } from 'node:util';
import type { V1PolicyRule } from '@kubernetes/client-node';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Labels, LabelValues, Probe, Trainer } from '../../../src/model/constants.js';
import type { TrainJob } from '../../../src/model/kube.js';
import type { BackendGates } from '../../../src/model/results.js';
import { probeWorkflowId } from '../../../src/contract/names.js';
import { startRequest } from '../../support/requests.js';
import type { ActivityCall } from '../support/activity-calls.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { startFaultProxy, type FaultProxy, type FaultRule } from '../support/fault-proxy.js';
import { grantRestricted, kubeAccess, kubeConfig, uniqueName } from '../support/kube.js';
import { expectNothingCreated, expectRefusal, trainerObjectNames } from '../support/refusals.js';
import { until } from '../support/operations.js';
import { rule } from '../support/rule-reasons.js';
import { keyOf, type Json } from '../support/runtimes.js';
import { dispatchSuite } from '../support/suite.js';
import { sampleRuntime, trainerObjects } from '../support/trainer.js';
import { renderProbe } from '../../../src/core/start/probe.js';
import { attemptToken, trainJobName } from '../../../src/core/start/names.js';

/** A probe's TrainJob (and copy) name: a JobID of its own run, submission 1 (src/core/start/probe.ts). */
const PROBE_NAME = /^dj-0000000000dspatch[0-9a-z]{9}-s1$/;

/** The name of the TrainJob the latest probe of the namespace created. */
const probeName = async (h: DispatchHarness): Promise<string> =>
  ((await probeActivities(h)).find((c) => c.type === 'createTrainJob')!.input as { trainJob: TrainJob }).trainJob.metadata.name!;

/** The Kubernetes calls the latest ProbeBackend of the namespace made, in order (first attempts), with inputs and results. */
async function probeActivities(h: DispatchHarness): Promise<ActivityCall[]> {
  const id = probeWorkflowId(h.config.namespace);
  const { runId } = await h.env.client.workflow.getHandle(id).describe();
  return h.calls.of(id).filter((call) => call.runId === runId && call.attempt === 1 && call.type !== 'getSettings');
}

const expectNothingLeft = (h: DispatchHarness) =>
  // The copy goes with the TrainJob, through the garbage collector: give it a moment.
  expect
    .poll(() => trainerObjectNames(h.kube, h.config.namespace), { timeout: 15_000, interval: 250 })
    .toEqual({ trainjobs: [], trainingruntimes: [] });

describe('ProbeBackend as an identity that may do everything', () => {
  const suite = dispatchSuite('probe', { gates: 'none' });

  it('proves reach, write and start, and leaves no probe TrainJob or runtime copy behind', async () => {
    const gates = await suite.h.worker.preflight();
    expect(gates).toEqual({ reach: true, write: true, start: true, reasons: [], checkedAt: expect.any(String) });
    expect(Number.isNaN(Date.parse(gates.checkedAt))).toBe(false);
    expect(suite.h.worker.gates.latestGates()).toEqual(gates);
    await expectNothingLeft(suite.h);
  });

  it("ran the probe as docs/start.md describes it: a Start on probeRuntime, with the probe's spec and node selector, then stopped", async () => {
    const calls = await probeActivities(suite.h);
    expect(calls.map((c) => c.type)).toEqual([
      'checkReach',
      'checkWrite',
      // Steps 2 and 5, and 7 and 8, each one local activity (patch start-folded-calls).
      'readRuntimeThenCopy',
      'createTrainJob',
      'setOwnerThenReadBack',
      'stopTrainJob',
    ]);
    const read = calls.find((c) => c.type === 'readRuntimeThenCopy')!;
    expect(read.input).toMatchObject({ probe: true, valid: { runtime: { kind: 'ClusterTrainingRuntime', name: 'dispatch-probe' } } });

    const { trainJob } = calls.find((c) => c.type === 'createTrainJob')!.input as { trainJob: TrainJob };
    expect(trainJob.metadata.name).toMatch(PROBE_NAME);
    expect(trainJob.spec.trainer).toMatchObject({ image: Probe.image, numNodes: 1 });
    expect(trainJob.spec.trainer?.command?.slice(-1)).toEqual(['true']);
    const patch = trainJob.spec.runtimePatches?.[0] as Json;
    expect(patch.trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec).toMatchObject({ nodeSelector: { [Labels.probeNodeSelector]: LabelValues.probeNodeSelector } });

    const stop = calls.find((c) => c.type === 'stopTrainJob')!;
    expect(stop.result).toEqual({ deleted: [`TrainJob ${suite.ns.name}/${trainJob.metadata.name}`] });
  });

  it('never meets another probe: with a TrainJob and copy left by an earlier probe (its stop failed), two probes in a row each prove start under names of their own and leave the leftover alone', async () => {
    const { runtimeCopy, trainJob } = renderProbe(await sampleRuntime('dispatch-probe'), suite.h.config);
    const leftover = trainJob.metadata.name!;
    await trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainingRuntimePlural).create(runtimeCopy);
    await trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainJobPlural).create(trainJob);
    try {
      const names: string[] = [];
      for (const _ of [1, 2]) {
        expect(await suite.h.worker.preflight()).toMatchObject({ reach: true, write: true, start: true, reasons: [] });
        names.push(await probeName(suite.h));
      }
      expect(names[0]).toMatch(PROBE_NAME);
      expect(names[1]).toMatch(PROBE_NAME);
      expect(new Set([leftover, ...names]).size).toBe(3);
      // Each probe's copy goes with its TrainJob through the garbage collector, a moment after the
      // stop: wait (bounded) for the collector, then compare exactly.
      const onlyLeftover = { trainjobs: [leftover], trainingruntimes: [leftover] };
      const left = () => trainerObjectNames(suite.h.kube, suite.ns.name);
      await until('the probes\' runtime copies to be collected', 30_000, async () => (isDeepStrictEqual(await left(), onlyLeftover) ? true : undefined)).catch(() => undefined);
      expect(await left()).toEqual(onlyLeftover);
    } finally {
      await trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainJobPlural).delete(leftover);
      await trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainingRuntimePlural).delete(leftover);
    }
    await expectNothingLeft(suite.h);
  });

  it('lets a Start through step 1 once it has proven the gates', async () => {
    const result = await suite.h.client.startTrainJob(startRequest());
    expect(result.uid).toBeTruthy();
  });

  it.each([
    { what: 'does not exist', edit: undefined },
    { what: 'breaks a rule', edit: 'backoffLimit 3' },
  ])('leaves the start gate unproven when probeRuntime $what, and Start is then refused with ErrUnsupported naming it', async ({ edit }) => {
    const probeRuntime = edit
      ? await suite.runtimes.cluster('probe-backoff', ({ job }) => (job.backoffLimit = 3), 'dispatch-probe')
      : ({ kind: 'ClusterTrainingRuntime', name: uniqueName('no-probe') } as const);
    const reason = edit ? `start: ${rule.backoff(keyOf(probeRuntime), 3)}` : `start: runtime ${keyOf(probeRuntime)} does not exist`;
    const g = await startDispatch({ namespace: suite.ns.name, gates: 'none', config: { probeRuntime: keyOf(probeRuntime) } });
    try {
      expect(await g.worker.preflight()).toMatchObject({ reach: true, write: true, start: false, reasons: [reason] });
      await expectNothingCreated(g.kube, suite.ns.name, async () =>
        expectRefusal((await g.client.submit(startRequest())).result(), { type: 'ErrUnsupported', step: 1, reasons: [reason] }),
      );
    } finally {
      await g.close();
    }
  });
});

describe('ProbeBackend as the restricted identity (RBAC in force)', () => {
  const runtimeReader: V1PolicyRule = { apiGroups: [Trainer.group], resources: [Trainer.trainingRuntimePlural], verbs: ['get'] };
  const suite = dispatchSuite('probe-restricted', async (namespace) => {
    await grantRestricted(namespace, 'runtime-reader', [runtimeReader]);
    return { access: kubeAccess('restricted', namespace), gates: 'none' };
  });
  const notAllowed = (verb: string, resource: string) => `write: not allowed to ${verb} ${resource} in namespace ${suite.ns.name}`;

  it('leaves the write gate unproven, naming each permission it lacks, and does not try the start gate', async () => {
    const gates = await suite.h.worker.preflight();
    expect(gates).toEqual<BackendGates>({
      reach: true,
      write: false,
      start: false,
      reasons: [
        notAllowed('create', 'trainjobs'),
        notAllowed('create', 'trainingruntimes'),
        notAllowed('patch', 'trainjobs'),
        notAllowed('patch', 'trainingruntimes'),
        notAllowed('delete', 'trainjobs'),
        notAllowed('delete', 'trainingruntimes'),
      ],
      checkedAt: expect.any(String),
    });
    expect((await probeActivities(suite.h)).map((c) => c.type)).toEqual(['checkReach', 'checkWrite']);
  });

  it('then refuses a Start with ErrReadOnly at step 1, naming every missing permission, and creates nothing', async () => {
    const reasons = suite.h.worker.gates.latestGates()!.reasons;
    await expectNothingCreated(suite.h.kube, suite.ns.name, async () =>
      expectRefusal((await suite.h.client.submit(startRequest())).result(), { type: 'ErrReadOnly', step: 1, reasons }),
    );
  });

  it('names only what is still missing after a partial grant, and proves every gate once Start has what it needs', async () => {
    const writer = (resource: string): V1PolicyRule => ({ apiGroups: [Trainer.group], resources: [resource], verbs: ['create', 'patch', 'delete'] });
    await grantRestricted(suite.ns.name, 'trainjob-writer', [writer(Trainer.trainJobPlural)]);
    expect((await suite.h.worker.preflight()).reasons).toEqual([
      notAllowed('create', 'trainingruntimes'),
      notAllowed('patch', 'trainingruntimes'),
      notAllowed('delete', 'trainingruntimes'),
    ]);

    await grantRestricted(suite.ns.name, 'runtime-writer', [writer(Trainer.trainingRuntimePlural)]);
    expect(await suite.h.worker.preflight()).toMatchObject({ reach: true, write: true, start: true, reasons: [] });
    await expectNothingLeft(suite.h);
    expect((await suite.h.client.startTrainJob(startRequest())).uid).toBeTruthy();
  });
});

describe('ProbeBackend when its Start ends with something perhaps made (fault proxy)', () => {
  let proxy: FaultProxy;
  // Registered before the suite's: vitest runs afterAll hooks last-registered first, so the proxy
  // closes after the worker that talks through it.
  afterAll(async () => proxy?.close());
  const suite = dispatchSuite('probe-faults', async (namespace) => {
    proxy = await startFaultProxy();
    return {
      access: proxy.accessFor({ ...proxy.accessFor(), namespace }),
      config: { timeouts: { call: '3s', workload: '3s' } },
      gates: 'none',
      requestTimeoutMs: 1_000,
    };
  });
  afterEach(() => proxy.clear());

  const path = (plural: string) => `/apis/${Trainer.group}/${Trainer.version}/namespaces/${suite.ns.name}/${plural}`;
  const post = (plural: string, action: FaultRule['action'], times: number): FaultRule => ({ method: 'POST', path: path(plural), times, action });

  // The probe Start ends ErrOutcomeUnknown at step 6, ErrUnreachable at step 5, where runStart
  // compensates nothing: ProbeBackend stops, by name, what carries the probe attempt's token.
  it.each([
    {
      what: 'step 6, every TrainJob create reset',
      step: 6,
      faults: () => [post(Trainer.trainJobPlural, 'reset', Infinity)],
      reason: 'waiting for TrainJob',
      deleted: [Trainer.trainingRuntimeKind],
    },
    {
      what: 'step 6, created unanswered, then reset',
      step: 6,
      faults: () => [post(Trainer.trainJobPlural, 'drop-response', 1), post(Trainer.trainJobPlural, 'reset', Infinity)],
      reason: 'waiting for TrainJob',
      deleted: [Trainer.trainJobKind, Trainer.trainingRuntimeKind],
    },
    {
      what: 'step 5, created unanswered, then 500',
      step: 5,
      faults: () => [post(Trainer.trainingRuntimePlural, 'drop-response', 1), post(Trainer.trainingRuntimePlural, 'status-500', Infinity)],
      reason: 'waiting for runtime copy',
      deleted: [Trainer.trainingRuntimeKind],
    },
  ])('a probe Start unanswered at $what: the start gate unproven, the stop by name, and nothing with the probe\'s name left', async ({ step, faults, reason, deleted }) => {
    for (const rule of faults()) proxy.inject(rule);
    const gates = await suite.h.worker.preflight();
    proxy.clear();
    const fold = (await probeActivities(suite.h)).find((c) => c.type === 'readRuntimeThenCopy')!.input as { valid: { request: { job: string; submission: number } } };
    const name = trainJobName(fold.valid.request.job, fold.valid.request.submission);
    expect(name).toMatch(PROBE_NAME);
    expect(gates).toMatchObject({ reach: true, write: true, start: false });
    expect(gates.reasons).toEqual([expect.stringContaining(`start: ${reason} ${suite.ns.name}/${name}`)]);

    const stop = (await probeActivities(suite.h)).find((c) => c.type === 'stopTrainJob');
    // With the configuration's mode and Kueue settings, as Start's own undo (with kueue.multiKueue
    // it removes the probe's copies on the worker clusters too).
    const { mode, kueue } = suite.h.config;
    expect(stop?.input).toEqual({ namespace: suite.ns.name, name, token: attemptToken(suite.ns.name, name, Probe.attempt), ownerSet: false, step, mode, kueue });
    expect(stop?.result).toEqual({ deleted: deleted.map((kind) => `${kind} ${suite.ns.name}/${name}`) });
    // The copy goes at once; a TrainJob's pods and JobSet go through the garbage collector: wait (bounded).
    const left = async () => {
      const all = await trainerObjectNames(suite.h.kube, suite.ns.name);
      return [...all.trainjobs, ...all.trainingruntimes].filter((n) => n === name);
    };
    await expect.poll(left, { timeout: 30_000, interval: 500 }).toEqual([]);
  });
});
