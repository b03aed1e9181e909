// renderStart, row by row: docs/start.md's request table and spec table ("Becomes"), "The TrainJob",
// "The runtime copy", and docs/contract.md §3 and §4.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attemptToken } from '../../../../src/core/start/names.js';
import { PROLOGUE } from '../../../../src/core/start/prologue.js';
import {
  activeDeadlineSeconds,
  compareBytes,
  decimalQuantity,
  renderStart,
} from '../../../../src/core/start/render.js';
import {
  Annotations,
  Dispatch,
  EnvVars,
  Extensions,
  Labels,
  Limits,
  Trainer,
} from '../../../../src/model/constants.js';
import type { EnvVar, TrainJob } from '../../../../src/model/kube.js';
import type { StartRequest } from '../../../../src/model/request.js';
import { StartRequestSchema } from '../../../../src/model/request.js';
import { config, exampleRequest, KUEUE, loadInputRuntime, validOf } from '../../../golden/cases.js';
import { requestArb } from '../../../golden/requests.js';
import { validateTrainingRuntime, validateTrainJob } from '../../../support/crd-schema.js';

const KIND = { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' } as const;
const TORCH = { kind: 'ClusterTrainingRuntime', name: 'torch-distributed' } as const;
const NAME = 'dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12';

function render(
  spec: Partial<StartRequest['spec']> = {},
  options: { runtime?: string; kueue?: boolean } = {},
) {
  const runtimeName = options.runtime ?? 'dispatch-kind';
  const ref = runtimeName === 'torch-distributed' ? TORCH : KIND;
  return renderStart(
    validOf(exampleRequest(ref, spec)),
    loadInputRuntime(runtimeName),
    config(options.kueue ? KUEUE : {}),
  );
}

const envOf = (trainJob: TrainJob) => trainJob.spec.trainer.env;
const envValue = (trainJob: TrainJob, name: string) => envOf(trainJob).find((e) => e.name === name)?.value;
const DISPATCH_VARS = [
  EnvVars.jobId,
  EnvVars.generation,
  EnvVars.submission,
  EnvVars.attempt,
  EnvVars.attemptToken,
  EnvVars.epochPrefix,
];

describe('docs/start.md, request table, "Becomes"', () => {
  const { trainJob, runtimeCopy } = render();

  it("Job: the TrainJob's name, the job-id labels, DISPATCH_JOB_ID", () => {
    expect(trainJob.metadata.name).toBe(NAME);
    expect(runtimeCopy.metadata?.name).toBe(NAME);
    expect(trainJob.metadata.labels?.[Labels.jobId]).toBe('01jd0q3j0y6q7j7z4w2x5v8k9m');
    expect(runtimeCopy.metadata?.labels?.[Labels.jobId]).toBe('01jd0q3j0y6q7j7z4w2x5v8k9m');
    expect(envValue(trainJob, EnvVars.jobId)).toBe('01JD0Q3J0Y6Q7J7Z4W2X5V8K9M');
  });

  it('Generation: G in the epoch prefix, DISPATCH_K8S_EPOCH_PREFIX = G × 10^6 + N; the generation labels', () => {
    expect(envValue(trainJob, EnvVars.epochPrefix)).toBe('3000012');
    expect(envValue(trainJob, EnvVars.generation)).toBe('3');
    expect(trainJob.metadata.labels?.[Labels.generation]).toBe('3');
    expect(runtimeCopy.metadata?.labels?.[Labels.generation]).toBe('3');
  });

  it("Submission: the name's suffix, the submission labels, the comment, DISPATCH_SUBMISSION", () => {
    expect(trainJob.metadata.name).toMatch(/-s12$/);
    expect(trainJob.metadata.labels?.[Labels.submission]).toBe('12');
    expect(runtimeCopy.metadata?.labels?.[Labels.submission]).toBe('12');
    expect(trainJob.metadata.annotations?.[Annotations.comment]).toContain(' s=12 ');
    expect(envValue(trainJob, EnvVars.submission)).toBe('12');
  });

  it("Attempt: the comment's a=<attempt> and the attempt token's prefix", () => {
    const again = renderStart(
      validOf({ ...exampleRequest(KIND), attempt: 7 }),
      loadInputRuntime('dispatch-kind'),
      config(),
    );
    expect(again.trainJob.metadata.annotations?.[Annotations.comment]).toBe(
      'dispatch job=01JD0Q3J0Y6Q7J7Z4W2X5V8K9M g=3 s=12 a=7',
    );
    expect(again.trainJob.metadata.annotations?.[Annotations.attemptToken]).toMatch(/^7-[0-9a-f]{12}$/);
    expect(envValue(again.trainJob, EnvVars.attempt)).toBe('7');
  });

  it('Spec: the TrainJob (the spec table below); Native: nothing', () => {
    const native = renderStart(
      validOf({ ...exampleRequest(KIND), native: { requeue: true, restart: true } }),
      loadInputRuntime('dispatch-kind'),
      config(),
    );
    expect(native).toEqual(render());
  });
});

describe('docs/start.md, spec table, "Becomes"', () => {
  it('Command: spec.trainer.command: /bin/sh, -c, the prologue, dispatch-prologue, then the command', () => {
    expect(render().trainJob.spec.trainer.command).toEqual([
      '/bin/sh',
      '-c',
      PROLOGUE,
      Dispatch.prologueName,
      'python',
      'train.py',
      '--epochs',
      '10',
    ]);
  });

  it("Env: spec.trainer.env, sorted by key, followed by dispatch's six variables", () => {
    const env = envOf(render({ env: { b: '1', B: '2', _x: '3', A_EMPTY: '', a: '4' } }).trainJob);
    expect(env.map((e) => e.name)).toEqual(['A_EMPTY', 'B', '_x', 'a', 'b', ...DISPATCH_VARS]);
    expect(env[0]).toEqual({ name: 'A_EMPTY' }); // an empty value is written as no value
    expect(env[1]).toEqual({ name: 'B', value: '2' });
  });

  it('Env: dispatch variables carry the job identity', () => {
    const trainJob = render().trainJob;
    expect(envOf(trainJob).slice(-6)).toEqual([
      { name: EnvVars.jobId, value: '01JD0Q3J0Y6Q7J7Z4W2X5V8K9M' },
      { name: EnvVars.generation, value: '3' },
      { name: EnvVars.submission, value: '12' },
      { name: EnvVars.attempt, value: '1' },
      { name: EnvVars.attemptToken, value: attemptToken('ml-jobs', NAME, 1) },
      { name: EnvVars.epochPrefix, value: '3000012' },
    ]);
  });

  it('WorkDir: DISPATCH_K8S_WORKDIR, the seventh variable, which the prologue enters', () => {
    const env = envOf(render({ workDir: '/workspace' }).trainJob);
    expect(env.at(-1)).toEqual({ name: EnvVars.workDir, value: '/workspace' });
    expect(env.slice(-7, -1).map((e) => e.name)).toEqual(DISPATCH_VARS);
    expect(envValue(render().trainJob, EnvVars.workDir)).toBeUndefined();
    expect(envValue(render({ workDir: '' }).trainJob, EnvVars.workDir)).toBeUndefined();
  });

  it('Nodes: spec.trainer.numNodes', () => {
    expect(render({ nodes: 5 }).trainJob.spec.trainer.numNodes).toBe(5);
  });

  it('GPUsPerNode: spec.trainer.resourcesPerNode.limits[<gpuResource>], when above 0', () => {
    expect(render({ gpusPerNode: 8 }).trainJob.spec.trainer.resourcesPerNode).toEqual({
      limits: { 'nvidia.com/gpu': '8' },
    });
    expect(render({ gpusPerNode: 0 }).trainJob.spec.trainer).not.toHaveProperty('resourcesPerNode');
    expect(render({ gpusPerNode: undefined }).trainJob.spec.trainer).not.toHaveProperty('resourcesPerNode');
  });

  it('GPUsPerNode: gpuResource defaults to nvidia.com/gpu and is configurable', () => {
    const valid = validOf(exampleRequest(KIND, { gpusPerNode: 2 }));
    const rendered = renderStart(
      valid,
      loadInputRuntime('dispatch-kind'),
      config({ gpuResource: 'amd.com/gpu' }),
    );
    expect(rendered.trainJob.spec.trainer.resourcesPerNode).toEqual({ limits: { 'amd.com/gpu': '2' } });
  });

  it('ProcsPerNode: spec.trainer.numProcPerNode, when above 0, on a torch runtime', () => {
    expect(
      render({ procsPerNode: 8 }, { runtime: 'torch-distributed' }).trainJob.spec.trainer.numProcPerNode,
    ).toBe(8);
    expect(
      render({ procsPerNode: 0 }, { runtime: 'torch-distributed' }).trainJob.spec.trainer,
    ).not.toHaveProperty('numProcPerNode');
  });

  it('ProcsPerNode: never written for a runtime without mlPolicy.torch, which would ignore it', () => {
    expect(render({ procsPerNode: 8 }).trainJob.spec.trainer).not.toHaveProperty('numProcPerNode');
  });

  it('TimeLimit: spec.activeDeadlineSeconds, rounded up to a whole second, when above 0', () => {
    expect(render({ timeLimit: '2h30m' }).trainJob.spec.activeDeadlineSeconds).toBe(9000);
    expect(render({ timeLimit: '1.5s' }).trainJob.spec.activeDeadlineSeconds).toBe(2);
    expect(render({ timeLimit: '1ns' }).trainJob.spec.activeDeadlineSeconds).toBe(1);
    expect(render({ timeLimit: '0s' }).trainJob.spec).not.toHaveProperty('activeDeadlineSeconds');
    expect(render({ timeLimit: undefined }).trainJob.spec).not.toHaveProperty('activeDeadlineSeconds');
    expect(activeDeadlineSeconds(null)).toBeUndefined();
  });

  it('Name, Checkpoint, Recovery and dispatch/SharedCheckpoint: nothing in the TrainJob', () => {
    const bare = { ...exampleRequest(KIND).spec };
    delete bare.name;
    delete bare.checkpoint;
    delete bare.recovery;
    bare.extensions = { ...bare.extensions };
    delete bare.extensions[Extensions.sharedCheckpoint];
    const without = renderStart(
      validOf({ ...exampleRequest(KIND), spec: bare }),
      loadInputRuntime('dispatch-kind'),
      config(),
    );
    expect(without).toEqual(render());
  });

  it('Extensions, dispatch/Image: spec.trainer.image', () => {
    expect(render().trainJob.spec.trainer.image).toBe('ghcr.io/example/train:1.4');
  });

  it('Extensions, kubeflow/RuntimeRef: the runtime that is copied', () => {
    const source = loadInputRuntime('torch-distributed');
    const { runtimeCopy } = render({}, { runtime: 'torch-distributed' });
    expect(runtimeCopy.spec).toEqual(source.spec);
    expect(runtimeCopy.metadata?.annotations?.[Annotations.sourceRuntime]).toBe(
      'ClusterTrainingRuntime/torch-distributed',
    );
  });
});

describe('docs/start.md, "The TrainJob" table', () => {
  it('spec.runtimeRef: {apiGroup: trainer.kubeflow.org, kind: TrainingRuntime, name: the runtime copy}', () => {
    const { trainJob, runtimeCopy } = render();
    expect(trainJob.spec.runtimeRef).toEqual({
      apiGroup: 'trainer.kubeflow.org',
      kind: 'TrainingRuntime',
      name: NAME,
    });
    expect(runtimeCopy.metadata?.name).toBe(trainJob.spec.runtimeRef.name);
  });

  it('spec.suspend: true at creation in plain mode; never written by the adapter in Kueue mode', () => {
    expect(render().trainJob.spec.suspend).toBe(true);
    expect(render({}, { kueue: true }).trainJob.spec).not.toHaveProperty('suspend');
  });

  it('spec.trainer.image: the dispatch.Image extension', () => {
    expect(render().trainJob.spec.trainer.image).toBe('ghcr.io/example/train:1.4');
  });

  it('spec.trainer.numNodes: Nodes', () => {
    expect(render({ nodes: 3 }).trainJob.spec.trainer.numNodes).toBe(3);
  });

  it('spec.trainer.numProcPerNode: ProcsPerNode, torch runtimes only', () => {
    expect(
      render({ procsPerNode: 4 }, { runtime: 'torch-distributed' }).trainJob.spec.trainer.numProcPerNode,
    ).toBe(4);
    expect(render({ procsPerNode: 4 }).trainJob.spec.trainer.numProcPerNode).toBeUndefined();
  });

  it('spec.trainer.resourcesPerNode.limits[gpuResource]: GPUsPerNode, when above 0', () => {
    expect(render({ gpusPerNode: 1 }).trainJob.spec.trainer.resourcesPerNode?.limits).toEqual({
      'nvidia.com/gpu': '1',
    });
    expect(render({ gpusPerNode: 0 }).trainJob.spec.trainer.resourcesPerNode).toBeUndefined();
  });

  it("spec.trainer.command: /bin/sh, -c, the prologue, dispatch-prologue, then the job's command", () => {
    expect(render({ command: ['true'] }).trainJob.spec.trainer.command).toEqual([
      '/bin/sh',
      '-c',
      PROLOGUE,
      'dispatch-prologue',
      'true',
    ]);
  });

  it("spec.trainer.env: the job's Env sorted by key, then dispatch's variables", () => {
    const names = envOf(render({ env: { Z: 'z', A: 'a' } }).trainJob).map((e) => e.name);
    expect(names).toEqual(['A', 'Z', ...DISPATCH_VARS]);
  });

  it('spec.activeDeadlineSeconds: TimeLimit rounded up to a second, when set', () => {
    expect(render({ timeLimit: '2h0m0.25s' }).trainJob.spec.activeDeadlineSeconds).toBe(7201);
  });

  it("spec.runtimePatches: one entry, dispatch's runtime patch", () => {
    const patches = render().trainJob.spec.runtimePatches;
    expect(patches).toHaveLength(1);
    expect(patches[0]?.manager).toBe(Dispatch.patchManager);
  });

  it('its labels and annotations: in Kueue mode the queue label and the start gate', () => {
    const { trainJob, runtimeCopy } = render({}, { kueue: true });
    expect(trainJob.metadata.labels?.[Labels.kueueQueueName]).toBe('user-queue');
    expect(trainJob.metadata.annotations?.[Annotations.kueueAdmissionGatedBy]).toBe(Dispatch.defaultGate);
    // TrainJob only: the copy carries neither.
    expect(runtimeCopy.metadata?.labels).not.toHaveProperty(Labels.kueueQueueName);
    expect(runtimeCopy.metadata?.annotations).not.toHaveProperty(Annotations.kueueAdmissionGatedBy);
  });

  it('its labels and annotations: in plain mode no Kueue keys; the gate is spec.suspend', () => {
    const { trainJob } = render();
    expect(trainJob.metadata.labels).not.toHaveProperty(Labels.kueueQueueName);
    expect(trainJob.metadata.annotations).not.toHaveProperty(Annotations.kueueAdmissionGatedBy);
  });

  it('a configured gate is the annotation value', () => {
    const valid = validOf(exampleRequest(KIND));
    const gated = renderStart(
      valid,
      loadInputRuntime('dispatch-kind'),
      config({ ...KUEUE, kueue: { ...KUEUE.kueue!, gate: 'example.com/gate' } }),
    );
    expect(gated.trainJob.metadata.annotations?.[Annotations.kueueAdmissionGatedBy]).toBe('example.com/gate');
  });
});

describe('docs/contract.md §3: labels and annotations on both objects', () => {
  it.each(['plain', 'kueue'] as const)('%s mode', (mode) => {
    const { trainJob, runtimeCopy } = render({}, { kueue: mode === 'kueue' });
    for (const object of [trainJob, runtimeCopy]) {
      expect(object.metadata?.namespace).toBe('ml-jobs');
      expect(object.metadata?.labels).toMatchObject({
        [Labels.managedBy]: 'dispatch',
        [Labels.jobId]: '01jd0q3j0y6q7j7z4w2x5v8k9m',
        [Labels.generation]: '3',
        [Labels.submission]: '12',
      });
      expect(object.metadata?.annotations).toMatchObject({
        [Annotations.comment]: 'dispatch job=01JD0Q3J0Y6Q7J7Z4W2X5V8K9M g=3 s=12 a=1',
        [Annotations.attemptToken]: attemptToken('ml-jobs', NAME, 1),
      });
    }
    expect(trainJob.metadata.annotations).not.toHaveProperty(Annotations.sourceRuntime);
  });
});

describe('docs/start.md, "The runtime copy"', () => {
  it("a TrainingRuntime with the TrainJob's name, whose spec is the source runtime's, copied verbatim", () => {
    const source = loadInputRuntime('torch-distributed');
    const { runtimeCopy, trainJob } = render({}, { runtime: 'torch-distributed' });
    expect(runtimeCopy.apiVersion).toBe(Trainer.apiVersion);
    expect(runtimeCopy.kind).toBe('TrainingRuntime');
    expect(runtimeCopy.metadata?.name).toBe(trainJob.metadata.name);
    expect(runtimeCopy.spec).toEqual(source.spec);
    // None of the source's own metadata is carried over.
    expect(Object.keys(runtimeCopy.metadata ?? {})).toEqual(['name', 'namespace', 'labels', 'annotations']);
    expect(runtimeCopy.metadata?.labels).not.toHaveProperty('trainer.kubeflow.org/framework');
  });

  it('is a deep copy: a later edit to the source does not change it', () => {
    const source = loadInputRuntime('dispatch-kind');
    const { runtimeCopy } = renderStart(validOf(exampleRequest(KIND)), source, config());
    (source.spec!.mlPolicy as Record<string, unknown>).numNodes = 99;
    expect((runtimeCopy.spec!.mlPolicy as Record<string, unknown>).numNodes).toBe(2);
  });

  it('from a TrainingRuntime: source-runtime names its kind', () => {
    const valid = validOf(exampleRequest({ kind: 'TrainingRuntime', name: 'publish' }));
    const { runtimeCopy } = renderStart(valid, loadInputRuntime('publish'), config());
    expect(runtimeCopy.metadata?.annotations?.[Annotations.sourceRuntime]).toBe('TrainingRuntime/publish');
  });
});

describe('helpers', () => {
  it('decimalQuantity writes canonical DecimalSI quantities', () => {
    expect([0, 1, 8, 999, 1000, 1500, 2000, 1_000_000, 10 ** 18, 10 ** 21].map(decimalQuantity)).toEqual([
      '0',
      '1',
      '8',
      '999',
      '1k',
      '1500',
      '2k',
      '1M',
      '1E',
      '1000E',
    ]);
  });

  it('compareBytes is UTF-8 byte order, not UTF-16 or locale order', () => {
    expect(['b', 'B', 'a', '_', 'A'].sort(compareBytes)).toEqual(['A', 'B', '_', 'a', 'b']);
    // U+FF5E sorts before U+1F680 in UTF-8 bytes, but after its surrogates in UTF-16.
    expect(['🚀', '～'].sort(compareBytes)).toEqual(['～', '🚀']);
    expect(compareBytes('ab', 'a')).toBeGreaterThan(0);
    expect(compareBytes('a', 'a')).toBe(0);
  });

  it('a runtime without a trainer job is a caller error naming the runtime', () => {
    const runtime = loadInputRuntime('dispatch-kind');
    (runtime.spec!.template as { spec: { replicatedJobs: unknown[] } }).spec.replicatedJobs = [];
    expect(() => renderStart(validOf(exampleRequest(KIND)), runtime, config())).toThrow(
      /runtime ClusterTrainingRuntime\/dispatch-kind: .* no named job labelled trainer\.kubeflow\.org\/trainjob-ancestor-step: trainer/,
    );
  });
});

describe('properties, for every request within the adapter limits', () => {
  const runtimes = [
    { ref: KIND, file: 'dispatch-kind' },
    { ref: TORCH, file: 'torch-distributed' },
  ] as const;
  const cases = fc
    .constantFrom(...runtimes)
    .chain((r) =>
      fc.tuple(fc.constant(r.file), requestArb(r.ref), fc.constantFrom<'plain' | 'kueue'>('plain', 'kueue')),
    );

  it('the arbitrary produces valid requests', () => {
    fc.assert(
      fc.property(cases, ([, request]) => {
        expect(StartRequestSchema.safeParse(request).error?.issues).toBeUndefined();
      }),
      { numRuns: 50 },
    );
  });

  it('rendering is deterministic and never mutates its inputs', () => {
    fc.assert(
      fc.property(cases, ([file, request, mode]) => {
        const valid = validOf(request);
        const runtime = loadInputRuntime(file);
        const cfg = config(mode === 'kueue' ? KUEUE : {});
        const before = JSON.stringify([valid, runtime, cfg]);
        const first = renderStart(valid, runtime, cfg);
        expect(JSON.stringify([valid, runtime, cfg])).toBe(before);
        expect(renderStart(valid, runtime, cfg)).toEqual(first);
        // Nothing rendered shares structure with the inputs.
        expect(first.runtimeCopy.spec).not.toBe(runtime.spec);
        first.trainJob.spec.trainer.command.push('x');
        expect(request.spec.command.at(-1)).not.toBe('x');
      }),
      { numRuns: 60 },
    );
  });

  it('command and env never exceed 128 items; env is the sorted job env then the dispatch variables', () => {
    fc.assert(
      fc.property(cases, ([file, request, mode]) => {
        const { trainJob } = renderStart(
          validOf(request),
          loadInputRuntime(file),
          config(mode === 'kueue' ? KUEUE : {}),
        );
        const { command, env } = trainJob.spec.trainer;
        expect(command.length).toBeLessThanOrEqual(Limits.trainerListMax);
        expect(env.length).toBeLessThanOrEqual(Limits.trainerListMax);
        const jobKeys = Object.keys(request.spec.env ?? {}).sort(compareBytes);
        const dispatchVars = request.spec.workDir ? [...DISPATCH_VARS, EnvVars.workDir] : DISPATCH_VARS;
        expect(env.map((e: EnvVar) => e.name)).toEqual([...jobKeys, ...dispatchVars]);
        expect(command.slice(Limits.prologueItems)).toEqual(request.spec.command);
      }),
      { numRuns: 60 },
    );
  });

  it('every rendered TrainJob and runtime copy validates against the Trainer v2.3.0 CRDs', () => {
    fc.assert(
      fc.property(cases, fc.boolean(), ([file, request, mode], initContainer) => {
        const cfg = config({
          ...(mode === 'kueue' ? KUEUE : {}),
          ...(initContainer ? { publish: { via: 'initContainer' } } : {}),
        });
        const { trainJob, runtimeCopy } = renderStart(validOf(request), loadInputRuntime(file), cfg);
        expect(validateTrainJob(trainJob)).toEqual([]);
        expect(validateTrainingRuntime(runtimeCopy)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('the attempt token differs across attempts and is stable for one', () => {
    fc.assert(
      fc.property(requestArb(KIND), fc.nat(), (request, other) => {
        const runtime = loadInputRuntime('dispatch-kind');
        const token = (attempt: number) =>
          renderStart(validOf({ ...request, attempt }), runtime, config()).trainJob.metadata.annotations?.[
            Annotations.attemptToken
          ];
        expect(token(request.attempt)).toBe(token(request.attempt));
        if (other !== request.attempt) expect(token(other)).not.toBe(token(request.attempt));
      }),
      { numRuns: 40 },
    );
  });
});
