// dispatch's runtime patch, row by row (docs/contract.md §4; docs/start.md, "The TrainJob", spec.runtimePatches).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placementEnv, podInfoMount, podInfoVolume, runtimePatch } from '../../../../src/core/start/runtime-patch.js';
import { trainerJob } from '../../../../src/core/start/runtime-shape.js';
import type { Config } from '../../../../src/model/config.js';
import { Dispatch, EnvVars, FieldPaths, Labels, PodInfo, Trainer } from '../../../../src/model/constants.js';
import type { RuntimePatch, TrainerRuntime } from '../../../../src/model/kube.js';
import { config, loadInputRuntime } from '../../../golden/cases.js';
import { jobIdArb, submissionArb } from '../../../golden/requests.js';
import { CRDS, loadCrdSchema } from '../../../support/crd-schema.js';

const INPUT = {
  jobId: '01JD0Q3J0Y6Q7J7Z4W2X5V8K9M',
  submission: 12,
  runtimeKey: 'ClusterTrainingRuntime/x',
  probe: false,
};
const PUBLISH = config({ publish: { via: 'initContainer', initContainer: 'dispatch-publish' } });

type Obj = Record<string, unknown>;
type Container = { name: string; env?: unknown[]; volumeMounts?: unknown[] };
type PodSpec = { containers?: Container[]; initContainers?: Container[]; [key: string]: unknown };
type Job = {
  name: string;
  template: { spec: { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } };
};
const jobsOf = (patch: RuntimePatch) =>
  (patch.trainingRuntimeSpec as { template: { spec: { replicatedJobs: Job[] } } }).template.spec
    .replicatedJobs;
const podOf = (patch: RuntimePatch) => jobsOf(patch)[0]!.template.spec.template;

/** A runtime whose trainer job is not the first replicated job, to show the patch finds it by label. */
function twoJobs(): TrainerRuntime {
  const runtime = loadInputRuntime('dispatch-kind');
  const jobSet = (runtime.spec!.template as { spec: { replicatedJobs: Obj[] } }).spec;
  const trainer = { ...jobSet.replicatedJobs[0]!, name: 'workers' };
  jobSet.replicatedJobs = [
    { name: 'initializer', template: { spec: { template: { spec: { containers: [] } } } } },
    trainer,
  ];
  return runtime;
}

/** Containers whose env Trainer v2.3.0 refuses in a runtime patch (pkg/constants: DatasetInitializer, ModelInitializer, Node). */
const NO_ENV_CONTAINERS = ['dataset-initializer', 'model-initializer', Trainer.nodeContainer];

/**
 * Trainer v2.3.0's rules for spec.runtimePatches, as its TrainJob webhook applies them on create
 * (pkg/runtime/framework/plugins/jobset/jobset.go, JobSet.Validate): a domain-prefixed manager;
 * every patched replicated job exists in the runtime; every patched init container and container
 * is an init container or container of that job; no env on the three containers above. Volumes,
 * volume mounts and init containers' env are not checked ("TODO: Validate Volumes, VolumeMounts").
 */
function trainerWebhookRefusals(patch: RuntimePatch, runtime: TrainerRuntime): string[] {
  const refusals: string[] = [];
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[^/]+$/.test(patch.manager))
    refusals.push('manager: not domain-prefixed');
  const runtimeJobs = (runtime.spec!.template as { spec: { replicatedJobs: Job[] } }).spec.replicatedJobs;
  for (const job of jobsOf(patch)) {
    const source = runtimeJobs.find((j) => j.name === job.name);
    if (!source) {
      refusals.push("must not have replicated job that doesn't exist in the runtime job template");
      continue;
    }
    const pod = source.template.spec.template.spec;
    const names = new Set([...(pod.initContainers ?? []), ...(pod.containers ?? [])].map((c) => c.name));
    const spec = job.template.spec.template.spec;
    for (const c of spec.initContainers ?? []) {
      if (!names.has(c.name))
        refusals.push(`must not have initContainer that doesn't exist in the runtime job ${job.name}`);
    }
    for (const c of spec.containers ?? []) {
      if (!names.has(c.name))
        refusals.push(`must not have container that doesn't exist in the runtime job ${job.name}`);
      else if ((c.env ?? []).length > 0 && NO_ENV_CONTAINERS.includes(c.name)) {
        refusals.push('must not have envs for the dataset-initializer, model-initializer, node containers');
      }
    }
  }
  return refusals;
}

type Schema = { properties?: Record<string, Schema>; items?: Schema; default?: unknown };

/**
 * Every field the API server would add to `value` from a `default` of the CRD's structural schema:
 * a property absent from an object we write whose schema has a default. Such a field would make the
 * stored entry differ from ours, and read-back compares our entry exactly.
 */
function schemaDefaults(schema: Schema, value: unknown, path: string): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, i) =>
      schema.items ? schemaDefaults(schema.items, item, `${path}[${i}]`) : [],
    );
  }
  if (typeof value !== 'object' || value === null || !schema.properties) return [];
  const object = value as Obj;
  return Object.entries(schema.properties).flatMap(([key, sub]) => {
    if (object[key] !== undefined) return schemaDefaults(sub, object[key], `${path}.${key}`);
    return sub.default !== undefined ? [`${path}.${key} defaults to ${JSON.stringify(sub.default)}`] : [];
  });
}

/** The schema of one spec.runtimePatches entry, in the TrainJob CRD. */
const PATCH_SCHEMA = (
  loadCrdSchema(CRDS.trainJob) as {
    properties: { spec: { properties: { runtimePatches: { items: Schema } } } };
  }
).properties.spec.properties.runtimePatches.items;

describe('runtimePatch (docs/contract.md §4)', () => {
  const patch = runtimePatch(loadInputRuntime('dispatch-kind'), INPUT, config());

  it('has manager dispatch.phpboyscout.uk/dispatch', () => {
    expect(patch.manager).toBe(Dispatch.patchManager);
  });

  it("patches the runtime's trainer replicated job, by that job's name, and nothing else", () => {
    expect(jobsOf(patch).map((j) => j.name)).toEqual(['node']);
    expect(jobsOf(runtimePatch(twoJobs(), INPUT, config())).map((j) => j.name)).toEqual(['workers']);
  });

  it('labels the pod template with job-id (lowercase) and submission', () => {
    expect(podOf(patch).metadata.labels).toEqual({
      [Labels.jobId]: '01jd0q3j0y6q7j7z4w2x5v8k9m',
      [Labels.submission]: '12',
    });
  });

  it('adds the pod volume dispatch-pod: a downward-API volume with the files name, uid, labels and annotations', () => {
    expect(podOf(patch).spec.volumes).toEqual([
      {
        name: 'dispatch-pod',
        downwardAPI: {
          items: [
            { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
            { path: 'uid', fieldRef: { fieldPath: 'metadata.uid' } },
            { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
            { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
          ],
        },
      },
    ]);
    expect(podInfoVolume().name).toBe(PodInfo.volume);
  });

  it('gives container node a read-only mount of dispatch-pod at /etc/dispatch/pod, and no env', () => {
    expect(podOf(patch).spec.containers).toEqual([
      {
        name: 'node',
        volumeMounts: [{ name: 'dispatch-pod', mountPath: '/etc/dispatch/pod', readOnly: true }],
      },
    ]);
    expect(podInfoMount()).toEqual({ name: PodInfo.volume, mountPath: PodInfo.mountPath, readOnly: true });
  });

  it('publish.via env: no init container, no node selector', () => {
    expect(Object.keys(podOf(patch).spec)).toEqual(['volumes', 'containers']);
  });

  it('publish.via initContainer: the configured init container gets DISPATCH_K8S_POD_NAME, DISPATCH_K8S_NODE_NAME and the same mount', () => {
    const cfg = config({ publish: { via: 'initContainer', initContainer: 'site-publisher' } });
    expect(podOf(runtimePatch(loadInputRuntime('publish'), INPUT, cfg)).spec.initContainers).toEqual([
      {
        name: 'site-publisher',
        env: [
          { name: EnvVars.podName, valueFrom: { fieldRef: { fieldPath: FieldPaths.podName } } },
          { name: EnvVars.nodeName, valueFrom: { fieldRef: { fieldPath: FieldPaths.nodeName } } },
        ],
        volumeMounts: [podInfoMount()],
      },
    ]);
    expect(placementEnv().map((e) => e.valueFrom?.fieldRef.fieldPath)).toEqual([
      'metadata.name',
      'spec.nodeName',
    ]);
    // Each container has a list of its own: nothing rendered shares structure.
    const spec = podOf(runtimePatch(loadInputRuntime('publish'), INPUT, cfg)).spec;
    expect(spec.initContainers![0]!.volumeMounts).not.toBe(spec.containers![0]!.volumeMounts);
  });

  it('the preflight probe only: nodeSelector {dispatch.phpboyscout.uk/probe: never}', () => {
    const probe = runtimePatch(loadInputRuntime('dispatch-kind'), { ...INPUT, probe: true }, config());
    expect(podOf(probe).spec.nodeSelector).toEqual({ [Labels.probeNodeSelector]: 'never' });
  });

  it('refuses, naming the runtime, a runtime with no trainer job or an unnamed one', () => {
    const runtime = loadInputRuntime('dispatch-kind');
    const jobs = (runtime.spec!.template as { spec: { replicatedJobs: Obj[] } }).spec.replicatedJobs;
    delete jobs[0]!.name;
    expect(() => runtimePatch(runtime, INPUT, config())).toThrow(/^runtime ClusterTrainingRuntime\/x: /);
    expect(() => runtimePatch({}, INPUT, config())).toThrow(/^runtime ClusterTrainingRuntime\/x: /);
  });
});

describe("the runtime patch against Trainer v2.3.0's webhook and CRD", () => {
  // Every input runtime with a configuration it satisfies (publish holds the init container).
  const runtimes: [string, Config][] = [
    ['dispatch-kind', config()],
    ['dispatch-probe', config()],
    ['torch-distributed', config()],
    ['publish', config()],
    ['publish', PUBLISH],
  ];
  const cases = fc.tuple(
    fc.constantFrom(...runtimes),
    fc.record({
      jobId: jobIdArb,
      submission: submissionArb,
      runtimeKey: fc.constant('ClusterTrainingRuntime/x'),
      probe: fc.boolean(),
    }),
  );

  it('the webhook rules pass for every runtime, configuration and input; the old env on node would not', () => {
    fc.assert(
      fc.property(cases, ([[file, cfg], input]) => {
        const runtime = loadInputRuntime(file);
        expect(trainerWebhookRefusals(runtimePatch(runtime, input, cfg), runtime)).toEqual([]);
      }),
      { numRuns: 100 },
    );
    const runtime = loadInputRuntime('dispatch-kind');
    const withEnv = runtimePatch(runtime, INPUT, config());
    podOf(withEnv).spec.containers![0]!.env = placementEnv();
    expect(trainerWebhookRefusals(withEnv, runtime)).toEqual([
      'must not have envs for the dataset-initializer, model-initializer, node containers',
    ]);
  });

  it('names only containers of the trainer job: node, and the publish init container', () => {
    const runtime = loadInputRuntime('publish');
    const spec = podOf(runtimePatch(runtime, INPUT, PUBLISH)).spec;
    const pod = (trainerJob(runtime) as { template: { spec: { template: { spec: PodSpec } } } }).template.spec
      .template.spec;
    expect(spec.containers!.map((c) => c.name)).toEqual([Trainer.nodeContainer]);
    expect(pod.containers!.map((c) => c.name)).toContain(Trainer.nodeContainer);
    expect(spec.initContainers!.map((c) => c.name)).toEqual(pod.initContainers!.map((c) => c.name));
  });

  it('the CRD schema defaults nothing inside it, so the server stores it as written (read-back compares it exactly)', () => {
    fc.assert(
      fc.property(cases, ([[file, cfg], input]) => {
        expect(
          schemaDefaults(PATCH_SCHEMA, runtimePatch(loadInputRuntime(file), input, cfg), 'patch'),
        ).toEqual([]);
      }),
      { numRuns: 20 },
    );
    // The check finds a default where the schema has one: an imagePullSecrets entry's name.
    expect(
      schemaDefaults(
        PATCH_SCHEMA,
        {
          trainingRuntimeSpec: {
            template: {
              spec: {
                replicatedJobs: [{ template: { spec: { template: { spec: { imagePullSecrets: [{}] } } } } }],
              },
            },
          },
        },
        'patch',
      ),
    ).toEqual([
      'patch.trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec.imagePullSecrets[0].name defaults to ""',
    ]);
  });
});
