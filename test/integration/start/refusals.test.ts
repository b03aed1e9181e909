// Every refusal of seeds 000 and 001, driven through StartTrainJob on the real servers: the type,
// the step and every reason, as the raw ApplicationFailure and as the typed error; and, for a
// refusal before step 5, that nothing was created.
import { createHash } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Annotations, EnvVars, Trainer } from '../../../src/model/constants.js';
import type { BackendGates } from '../../../src/model/results.js';
import type { StartRequest } from '../../../src/model/request.js';
import type { TrainJob, TrainerRuntime } from '../../../src/model/kube.js';
import { startRequest, type RequestOptions } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { kubeConfig, uniqueName } from '../support/kube.js';
import { expectNothingCreated, expectRefusal, startRaw, type ExpectedRefusal } from '../support/refusals.js';
import { bendRankRestart, breakEveryRule, everyRuleReasons, exitCodeRule, extraJob, ignoreRule, jobSetRule, rule, weakened } from '../support/rule-reasons.js';
import { keyOf, type Json, type RuntimeRef } from '../support/runtimes.js';
import { dispatchSuite } from '../support/suite.js';
import { sampleRuntime, trainerObjects } from '../support/trainer.js';

const suite = dispatchSuite('refusals');

/** The TrainJob's (and the copy's) name, computed here from docs/contract.md §3 rather than by the product. */
const nameOf = (request: { job: string; submission: number }) => `dj-${request.job.toLowerCase()}-s${request.submission}`;
const tokenOf = (name: string, attempt: number) =>
  `${attempt}-${createHash('sha256').update(`${suite.ns.name}/${name}/${attempt}`).digest('hex').slice(0, 12)}`;

/** Submits through the typed client and asserts the refusal, and that the namespace is untouched. */
async function refused(request: StartRequest, expected: ExpectedRefusal, harness = suite.h): Promise<void> {
  await expectNothingCreated(harness.kube, suite.ns.name, async () => expectRefusal((await harness.client.submit(request)).result(), expected));
}

/**
 * A request the typed client would refuse itself: sent as is, as a Go or CLI caller would, so the
 * workflow's own validation answers. The typed client must refuse it alike, before starting anything.
 */
async function refusedRaw(request: unknown, expected: ExpectedRefusal): Promise<void> {
  await expectNothingCreated(suite.h.kube, suite.ns.name, () => expectRefusal(startRaw(suite.h, request), expected));
  await expect(suite.h.client.submit(request as StartRequest)).rejects.toMatchObject({ type: expected.type, step: expected.step, reasons: expected.reasons });
}

const invalid = (...reasons: string[]): ExpectedRefusal => ({ type: 'ErrInvalid', step: 4, reasons });
const withSpec = (spec: Record<string, unknown>, options: RequestOptions = {}) => {
  const request = startRequest(options);
  return { ...request, spec: { ...request.spec, ...spec } };
};
const withoutExtension = (key: string) => {
  const request = startRequest();
  delete (request.spec.extensions as Record<string, unknown>)[key];
  return request;
};
const envOf = (entries: number) => Object.fromEntries(Array.from({ length: entries }, (_, i) => [`V${String(i).padStart(3, '0')}`, 'x']));
const commandOf = (items: number) => Array.from({ length: items }, (_, i) => `arg${i}`);

describe('step 1: the backend gates (docs/start.md; docs/contract.md §8)', () => {
  const gates = (g: Partial<BackendGates>): BackendGates => ({
    reach: true,
    write: true,
    start: true,
    reasons: [],
    checkedAt: '2026-01-01T00:00:00.000Z',
    ...g,
  });
  const cases: { what: string; gates: BackendGates | 'none'; expected: ExpectedRefusal }[] = [
    {
      what: 'a closed backend (reach not proven) is ErrUnreachable, naming the reach gate',
      gates: gates({ reach: false, write: false, start: false, reasons: ['reach: get /version: no answer from the Kubernetes API (ECONNREFUSED)'] }),
      expected: { type: 'ErrUnreachable', step: 1, reasons: ['reach: get /version: no answer from the Kubernetes API (ECONNREFUSED)'] },
    },
    {
      what: 'no preflight yet is ErrUnreachable, naming the reach gate',
      gates: 'none',
      expected: { type: 'ErrUnreachable', step: 1, reasons: ['reach: not proven (no preflight has completed yet)'] },
    },
    {
      what: 'a read-only backend (write not proven) is ErrReadOnly, naming the write gate and each of its reasons',
      gates: gates({
        write: false,
        start: false,
        reasons: ['write: not allowed to create trainjobs in namespace N', 'write: not allowed to delete trainingruntimes in namespace N'],
      }),
      expected: {
        type: 'ErrReadOnly',
        step: 1,
        reasons: ['write: not allowed to create trainjobs in namespace N', 'write: not allowed to delete trainingruntimes in namespace N'],
      },
    },
    {
      what: 'an observe-only backend (start not proven) is ErrUnsupported, naming the start gate',
      gates: gates({ start: false, reasons: ['start: runtime ClusterTrainingRuntime/dispatch-probe does not exist'] }),
      expected: { type: 'ErrUnsupported', step: 1, reasons: ['start: runtime ClusterTrainingRuntime/dispatch-probe does not exist'] },
    },
    {
      what: 'an unproven gate without a recorded reason is still named',
      gates: gates({ start: false }),
      expected: { type: 'ErrUnsupported', step: 1, reasons: ['start: not proven'] },
    },
  ];
  // docs/contract.md §8: a Start that meets unknown gates waits up to CallBound (5 s here) for a definite answer.
  it('a Start that meets no gates yet waits for the first preflight: proven 1 s later, the Start runs', async () => {
    const g = await startDispatch({ namespace: suite.ns.name, gates: 'none' });
    try {
      const handle = await g.client.submit(startRequest());
      const proven = setTimeout(() => g.worker.gates.update(gates({})), 1_000);
      try {
        const started = await handle.result();
        expect(started.ref).toMatch(new RegExp(`^${suite.ns.name}/`));
      } finally {
        clearTimeout(proven);
      }
    } finally {
      await g.close();
    }
  });

  it.each(cases)('docs/start.md, step 1: $what', async ({ gates: given, expected }) => {
    const g = await startDispatch({ namespace: suite.ns.name, gates: given });
    try {
      await refused(startRequest(), expected, g);
    } finally {
      await g.close();
    }
  });
});

describe('the request table (docs/start.md, "The request"; each refusal is ErrInvalid)', () => {
  it.each([
    { row: 'Job: not a valid JobID', patch: { job: 'not-a-ulid' }, reason: 'job: not a valid JobID' },
    { row: 'Job: a lower-case ULID is not canonical', patch: { job: '01jd0q3j0y6q7j7z4w2x5v8k9m' }, reason: 'job: not a valid JobID' },
    { row: 'Generation: negative', patch: { generation: -1 }, reason: 'generation: negative generation' },
    { row: 'Generation: above 18,000,000', patch: { generation: 18_000_001 }, reason: 'generation: generation above 18,000,000' },
    { row: 'Submission: 0 is outside 1 to 999,999', patch: { submission: 0 }, reason: 'submission: submission outside 1 to 999,999' },
    { row: 'Submission: 1,000,000 is outside 1 to 999,999', patch: { submission: 1_000_000 }, reason: 'submission: submission outside 1 to 999,999' },
    { row: 'Attempt: negative', patch: { attempt: -1 }, reason: 'attempt: negative attempt' },
    { row: 'Attempt: not an integer (docs/contract.md §2)', patch: { attempt: 1.5 }, reason: 'attempt: attempt must be an integer' },
    { row: 'an unknown key (docs/contract.md §2)', patch: { colour: 'blue' }, reason: 'colour: unknown field' },
  ])('docs/start.md, request table, $row', async ({ patch, reason }) => {
    await refusedRaw({ ...startRequest(), ...patch }, invalid(reason));
  });

  it('docs/start.md, request table: the edges of every range are accepted (generation 18,000,000, submission 999,999, attempt 0)', async () => {
    const request = { ...startRequest(), generation: 18_000_000, submission: 999_999, attempt: 0 };
    const result = await suite.h.client.startTrainJob(request);
    expect(result.name).toBe(nameOf(request));
    const job = (await trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainJobPlural).get(result.name)) as TrainJob;
    expect(job.spec.trainer?.env).toContainEqual({ name: EnvVars.epochPrefix, value: '18000000999999' });
  });
});

describe("the spec (docs/start.md: JobSpec.Validate's list, then the adapter's limits)", () => {
  it('docs/start.md, "The spec": JobSpec.Validate reports every problem of one request at once', async () => {
    const request = withSpec({
      command: [],
      env: { A: 'x\u0000y', DISPATCH_X: '1', '1BAD': 'v' },
      nodes: 0,
      gpusPerNode: -1,
      procsPerNode: -2,
      timeLimit: '-1s',
      checkpoint: 'relative/ckpt',
    });
    await refusedRaw(
      request,
      invalid(
        'spec.command: no command',
        'spec.env.A: NUL in env',
        "spec.env.DISPATCH_X: reserved env key (keys beginning DISPATCH_ are dispatch's)",
        'spec.env.1BAD: malformed env key (must match ^[A-Za-z_][A-Za-z0-9_]*$)',
        'spec.nodes: fewer than one node',
        'spec.gpusPerNode: negative GPU count',
        'spec.procsPerNode: negative process count',
        'spec.timeLimit: negative time limit',
        'spec.checkpoint: checkpoint is neither an absolute path nor an s3:// URL',
      ),
    );
  });

  it('docs/start.md, "The spec": a NUL in the command is ErrInvalid', async () => {
    await refusedRaw(withSpec({ command: ['python', 'a\u0000b'] }), invalid('spec.command[1]: NUL in command'));
  });

  it('docs/start.md, JobSpec table, Command: more than 124 items is ErrInvalid', async () => {
    await refusedRaw(
      withSpec({ command: commandOf(125) }),
      invalid('spec.command: 125 items; at most 124 are allowed (Trainer allows 128, the prologue takes 4)'),
    );
  });

  it('docs/start.md, JobSpec table, Env: more than 122 entries is ErrInvalid', async () => {
    await refusedRaw(
      withSpec({ env: envOf(123), workDir: undefined }),
      invalid('spec.env: 123 entries; at most 122 are allowed (Trainer allows 128, dispatch adds 6 variables)'),
    );
  });

  it('docs/start.md, JobSpec table, Env: more than 121 entries with WorkDir is ErrInvalid', async () => {
    await refusedRaw(
      withSpec({ env: envOf(122), workDir: '/workspace' }),
      invalid('spec.env: 122 entries; at most 121 are allowed with workDir set (Trainer allows 128, dispatch adds 7 variables)'),
    );
  });

  it("docs/start.md, JobSpec table: 124 command items and 122 (121 with WorkDir) env entries are accepted, and fit the real CRD's 128", async () => {
    for (const spec of [
      { command: commandOf(124), env: envOf(122), workDir: undefined },
      { command: commandOf(124), env: envOf(121), workDir: '/workspace' },
    ]) {
      const result = await suite.h.client.startTrainJob(withSpec(spec));
      const job = (await trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainJobPlural).get(result.name)) as TrainJob;
      expect([job.spec.trainer?.command?.length, job.spec.trainer?.env?.length]).toEqual([128, 128]);
    }
  });
});

describe('the extensions (docs/start.md, "Extensions")', () => {
  it('docs/start.md, Extensions, dispatch/Image: missing is ErrInvalid', async () => {
    await refusedRaw(withoutExtension('dispatch/Image'), invalid('spec.extensions.dispatch/Image: is required'));
  });

  it('docs/start.md, Extensions, dispatch/Image: an empty Ref is ErrInvalid', async () => {
    const request = startRequest({ spec: { extensions: { 'dispatch/Image': { ref: '' } } } });
    await refusedRaw(request, invalid('spec.extensions.dispatch/Image.ref: empty Ref'));
  });

  it('docs/start.md, Extensions, kubeflow/RuntimeRef: missing is ErrInvalid', async () => {
    await refusedRaw(withoutExtension('kubeflow/RuntimeRef'), invalid('spec.extensions.kubeflow/RuntimeRef: is required'));
  });

  it('docs/start.md, Extensions, any other: refused with ErrUnsupported, never ignored', async () => {
    const request = startRequest({ spec: { extensions: { 'acme/Thing': { colour: 'blue' } } } });
    await refusedRaw(request, { type: 'ErrUnsupported', step: 4, reasons: ['extension acme/Thing is not supported on Kubeflow'] });
  });
});

describe('step 2: the runtime named by kubeflow/RuntimeRef (docs/start.md; docs/runtime-rules.md, the first rule)', () => {
  it('docs/runtime-rules.md, "it exists": a ClusterTrainingRuntime that does not exist is ErrUnsupported', async () => {
    const name = uniqueName('missing');
    await refused(startRequest({ runtime: { kind: 'ClusterTrainingRuntime', name } }), {
      type: 'ErrUnsupported',
      step: 2,
      reasons: [`runtime ClusterTrainingRuntime/${name} does not exist`],
    });
  });

  it('docs/runtime-rules.md, "it exists": a TrainingRuntime is read from the configured namespace, and one missing there is ErrUnsupported', async () => {
    // The name of a ClusterTrainingRuntime that does exist: the kind decides where it is looked for.
    await refused(startRequest({ runtime: { kind: 'TrainingRuntime', name: 'dispatch-kind' } }), {
      type: 'ErrUnsupported',
      step: 2,
      reasons: ['runtime TrainingRuntime/dispatch-kind does not exist'],
    });
  });

  it("docs/runtime-rules.md, the site's allow-list: a runtime outside the configured runtimes is ErrUnsupported, without reading it", async () => {
    const g = await startDispatch({ namespace: suite.ns.name, config: { runtimes: ['ClusterTrainingRuntime/dispatch-torch'] } });
    try {
      await refused(
        startRequest(),
        {
          type: 'ErrUnsupported',
          step: 2,
          reasons: ['runtime ClusterTrainingRuntime/dispatch-kind is not in the configured runtimes (ClusterTrainingRuntime/dispatch-torch)'],
        },
        g,
      );
      // Also when it does not exist: the allow-list answers first.
      await refused(
        startRequest({ runtime: { kind: 'TrainingRuntime', name: 'nowhere' } }),
        {
          type: 'ErrUnsupported',
          step: 2,
          reasons: ['runtime TrainingRuntime/nowhere is not in the configured runtimes (ClusterTrainingRuntime/dispatch-torch)'],
        },
        g,
      );
    } finally {
      await g.close();
    }
  });
});

describe('step 3: the runtime rules (docs/runtime-rules.md, "The rules"; ErrUnsupported naming every reason)', () => {
  const refusedOn = async (runtime: RuntimeRef, reasons: string[], harness = suite.h) =>
    refused(startRequest({ runtime }), { type: 'ErrUnsupported', step: 3, reasons }, harness);

  it('docs/runtime-rules.md: the trainer job states backoffLimit 3', async () => {
    const runtime = await suite.runtimes.cluster('backoff', ({ job }) => (job.backoffLimit = 3));
    await refusedOn(runtime, [rule.backoff(keyOf(runtime), 3)]);
  });

  it('docs/runtime-rules.md: the trainer pod template states restartPolicy OnFailure', async () => {
    const runtime = await suite.runtimes.cluster('onfailure', ({ pod }) => (pod.restartPolicy = 'OnFailure'));
    await refusedOn(runtime, [rule.restartPolicy(keyOf(runtime), 'is OnFailure')]);
  });

  it('docs/runtime-rules.md: a replicated job besides the trainer one', async () => {
    const runtime = await suite.runtimes.cluster('extra', ({ jobSet }) => jobSet.replicatedJobs.push(extraJob('launcher')));
    await refusedOn(runtime, [rule.extraJob(keyOf(runtime), 1, 'launcher')]);
  });

  it('docs/runtime-rules.md: no replicated job labelled as the trainer', async () => {
    const runtime = await suite.runtimes.cluster('unlabelled', ({ replicatedJob }) => delete replicatedJob.template.metadata);
    await refusedOn(runtime, [rule.noTrainer(keyOf(runtime), 'replicatedJobs[0] "node"')]);
  });

  it('docs/runtime-rules.md: mlPolicy names mpi', async () => {
    const runtime = await suite.runtimes.cluster('mpi', ({ spec }) => (spec.mlPolicy.mpi = {}));
    await refusedOn(runtime, [rule.mlPolicy(keyOf(runtime), 'mpi')]);
  });

  it('docs/runtime-rules.md: the trainer job has a podFailurePolicy rule with action Ignore', async () => {
    const runtime = await suite.runtimes.cluster('ignore', bendRankRestart);
    await refusedOn(runtime, [rule.ignore(keyOf(runtime), 0)]);
  });

  it('docs/runtime-rules.md: a namespaced TrainingRuntime is held to the same rules', async () => {
    const runtime = await suite.runtimes.namespaced(suite.ns.name, 'ns-onfailure', ({ pod }) => (pod.restartPolicy = 'OnFailure'));
    await refusedOn(runtime, [rule.restartPolicy(keyOf(runtime), 'is OnFailure')]);
  });

  it('docs/runtime-rules.md: a runtime that breaks every rule at once is refused with every reason, in the order of the rules', async () => {
    const runtime = await suite.runtimes.cluster('broken', breakEveryRule);
    await refusedOn(runtime, everyRuleReasons(keyOf(runtime)));
  });

  it('docs/runtime-rules.md: FailJob and Count rules, and a JobSet failurePolicy of maxRestarts 0 and FailJobSet rules, are accepted', async () => {
    const runtime = await suite.runtimes.cluster('accepted', ({ jobSet, job }) => {
      jobSet.failurePolicy = { maxRestarts: 0, rules: [jobSetRule('fail', 'FailJobSet')] };
      job.podFailurePolicy = { rules: [exitCodeRule('FailJob'), exitCodeRule('Count')] };
    });
    const result = await suite.h.client.startTrainJob(startRequest({ runtime }));
    expect(result.weakened).toBeUndefined();
  });

  it('docs/runtime-rules.md, publish.via initContainer: a trainer pod without the configured init container', async () => {
    const g = await startDispatch({ namespace: suite.ns.name, config: { publish: { via: 'initContainer', initContainer: 'publisher' } } });
    try {
      const runtime = { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' } as const;
      await refusedOn(runtime, [rule.initContainer(keyOf(runtime), 'publisher')], g);
      const withInit = await suite.runtimes.cluster('with-init', ({ pod }) => (pod.initContainers = [{ name: 'publisher', image: 'busybox' }]));
      expect((await g.client.startTrainJob(startRequest({ runtime: withInit }))).name).toMatch(/^dj-/);
    } finally {
      await g.close();
    }
  });

  describe('allowRankRestart (docs/runtime-rules.md)', () => {
    let lenient: DispatchHarness;
    beforeAll(async () => {
      lenient = await startDispatch({ namespace: suite.ns.name, config: { allowRankRestart: true } });
    });
    afterAll(async () => lenient?.close());

    it('accepts a runtime with an Ignore rule, and the result carries the weakened identity guarantee', async () => {
      const runtime = await suite.runtimes.cluster('waived', bendRankRestart);
      const result = await lenient.client.startTrainJob(startRequest({ runtime }));
      expect(result.weakened).toBe(weakened('a podFailurePolicy Ignore rule'));
    });

    it("answers with the documented IdentityWeakener text when it finds both an Ignore rule and backoffLimitPerIndex", async () => {
      const runtime = await suite.runtimes.cluster('waived-both', ({ job }) => {
        job.podFailurePolicy = { rules: [ignoreRule, ignoreRule] };
        job.completionMode = 'Indexed';
        job.backoffLimitPerIndex = 2;
      });
      const result = await lenient.client.startTrainJob(startRequest({ runtime }));
      // Seed 001, word for word.
      expect(result.weakened).toBe(
        "allowRankRestart: the runtime's trainer job states a podFailurePolicy Ignore rule and backoffLimitPerIndex, so a " +
          'failed rank can rerun under the same DISPATCH_ATTEMPT and one execution can contain a restarted rank',
      );
    });

    it('waives only those two: the other rules still refuse, and the waived reasons are not listed', async () => {
      const runtime = await suite.runtimes.cluster('waived-not-all', ({ job }) => {
        job.podFailurePolicy = { rules: [ignoreRule] };
        job.backoffLimit = 3;
      });
      await refusedOn(runtime, [rule.backoff(keyOf(runtime), 3)], lenient);
    });
  });
});

describe('step 4: ProcsPerNode (docs/start.md, JobSpec table)', () => {
  it('docs/start.md, JobSpec table, ProcsPerNode: a runtime without mlPolicy.torch is ErrUnsupported', async () => {
    await refused(startRequest({ spec: { procsPerNode: 8 } }), {
      type: 'ErrUnsupported',
      step: 4,
      reasons: ['spec.procsPerNode is 8; ClusterTrainingRuntime/dispatch-kind has no mlPolicy.torch, which would ignore it'],
    });
  });

  it('docs/start.md, JobSpec table, ProcsPerNode: a torch runtime takes it as spec.trainer.numProcPerNode', async () => {
    const result = await suite.h.client.startTrainJob(
      startRequest({ runtime: { kind: 'ClusterTrainingRuntime', name: 'dispatch-torch' }, spec: { procsPerNode: 8 } }),
    );
    const job = (await trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainJobPlural).get(result.name)) as TrainJob;
    expect(job.spec.trainer?.numProcPerNode).toBe(8);
  });
});

describe('step 5: a runtime copy already there (docs/start.md, step 5)', () => {
  const copies = () => trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainingRuntimePlural);
  const jobs = () => trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainJobPlural);

  /** A TrainingRuntime of the job's name, as an earlier call might have left it. */
  async function existingCopy(name: string, spec: Json, ownerReferences?: Json[]): Promise<TrainerRuntime> {
    return copies().create({
      apiVersion: Trainer.apiVersion,
      kind: Trainer.trainingRuntimeKind,
      metadata: { name, ...(ownerReferences ? { ownerReferences } : {}) },
      spec,
    } as TrainerRuntime);
  }

  it('docs/start.md, step 5: a copy with an owner is not reused: ErrRejected, and it is left as it was', async () => {
    const request = startRequest();
    const name = nameOf(request);
    // A real owner: the garbage collector would delete a copy whose owner does not exist.
    const owner = await kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: suite.ns.name, body: { metadata: { name: uniqueName('owner') } } });
    const ownerRef = { apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata!.name!, uid: owner.metadata!.uid! };
    const before = await existingCopy(name, (await sampleRuntime('dispatch-kind')).spec!, [ownerRef]);

    await expectRefusal((await suite.h.client.submit(request)).result(), {
      type: 'ErrRejected',
      step: 5,
      reasons: [`runtime copy ${suite.ns.name}/${name} already exists and is owned by ConfigMap/${ownerRef.name}`],
    });
    const after = await copies().get(name);
    expect(after.metadata).toMatchObject({ uid: before.metadata?.uid, resourceVersion: before.metadata?.resourceVersion });
    expect(await jobs().find(name)).toBeUndefined();
  });

  it("docs/start.md, step 5: a copy whose spec differs from the source runtime's is not reused: ErrRejected", async () => {
    const request = startRequest();
    const name = nameOf(request);
    const before = await existingCopy(name, (await sampleRuntime('dispatch-torch')).spec!);

    await expectRefusal((await suite.h.client.submit(request)).result(), {
      type: 'ErrRejected',
      step: 5,
      reasons: [`runtime copy ${suite.ns.name}/${name} already exists and its spec differs from the source runtime's`],
    });
    expect((await copies().get(name)).metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(await jobs().find(name)).toBeUndefined();
  });

  it("docs/start.md, step 5: a copy with no owner and the source's spec is reused", async () => {
    const request = startRequest();
    const name = nameOf(request);
    const before = await existingCopy(name, (await sampleRuntime('dispatch-kind')).spec!);
    const result = await suite.h.client.startTrainJob(request);
    const copy = await copies().get(name);
    expect(copy.metadata?.uid).toBe(before.metadata?.uid);
    expect(copy.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: Trainer.trainJobKind, uid: result.uid })]);
  });
});

describe('step 6: a TrainJob of the name already there (docs/contract.md §7)', () => {
  const copies = () => trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainingRuntimePlural);
  const jobs = () => trainerObjects(kubeConfig(), suite.ns.name, Trainer.trainJobPlural);

  /**
   * A TrainJob of the job's name made by another attempt (its token), running on `runtimeRef`.
   * Trainer's webhook admits a TrainJob only on a runtime that exists, so a TrainingRuntime of that
   * name is made first and, when `runtimeRef` names the job's own copy, deleted again: what is left
   * is a TrainJob whose copy is gone, as after another attempt's copy was removed.
   */
  async function otherAttemptsTrainJob(name: string, runtimeRef: Json): Promise<void> {
    const ownCopy = runtimeRef.kind === Trainer.trainingRuntimeKind && runtimeRef.name === name;
    if (ownCopy) await copies().create({ apiVersion: Trainer.apiVersion, kind: Trainer.trainingRuntimeKind, metadata: { name }, spec: (await sampleRuntime('dispatch-kind')).spec });
    await jobs().create({
      apiVersion: Trainer.apiVersion,
      kind: Trainer.trainJobKind,
      metadata: { name, annotations: { [Annotations.attemptToken]: tokenOf(name, 2) } },
      spec: { runtimeRef: { apiGroup: Trainer.group, ...runtimeRef }, suspend: true },
    });
    if (ownCopy) await copies().delete(name);
  }

  const expectedRefusal = (name: string): ExpectedRefusal => ({
    type: 'ErrRejected',
    step: 6,
    reasons: [`TrainJob ${suite.ns.name}/${name} already exists with attempt token ${tokenOf(name, 2)}; this attempt's is ${tokenOf(name, 1)}`],
    // No ref: the TrainJob in the way is not this attempt's.
  });

  it("a TrainJob with another attempt's token is ErrRejected; the copy is kept, because that TrainJob runs on it", async () => {
    const request = startRequest({ attempt: 1 });
    const name = nameOf(request);
    await otherAttemptsTrainJob(name, { kind: Trainer.trainingRuntimeKind, name });

    await expectRefusal((await suite.h.client.submit(request)).result(), expectedRefusal(name));
    const copy = await copies().get(name);
    expect(copy.metadata?.annotations?.[Annotations.attemptToken]).toBe(tokenOf(name, 1));
    expect((await jobs().get(name)).metadata?.annotations?.[Annotations.attemptToken]).toBe(tokenOf(name, 2));
  });

  it("a TrainJob with another attempt's token that runs on another runtime is ErrRejected, and the copy is deleted", async () => {
    const request = startRequest({ attempt: 1 });
    const name = nameOf(request);
    await otherAttemptsTrainJob(name, { kind: Trainer.clusterTrainingRuntimeKind, name: 'dispatch-kind' });

    await expectRefusal((await suite.h.client.submit(request)).result(), expectedRefusal(name));
    expect(await copies().find(name)).toBeUndefined();
    expect((await jobs().get(name)).metadata?.annotations?.[Annotations.attemptToken]).toBe(tokenOf(name, 2));
  });
});
