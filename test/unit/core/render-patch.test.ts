// dispatch's runtime patch, row by row (CONTRACT §4; seed 000, "The TrainJob", spec.runtimePatches).
import { describe, expect, it } from 'vitest';
import { placementEnv, runtimePatch } from '../../../src/core/runtime-patch.js';
import { Dispatch, EnvVars, Labels } from '../../../src/model/constants.js';
import type { RuntimePatch, TrainerRuntime } from '../../../src/model/kube.js';
import { config, loadInputRuntime } from '../../golden/cases.js';

const INPUT = {
  jobId: '01JD0Q3J0Y6Q7J7Z4W2X5V8K9M',
  submission: 12,
  runtimeKey: 'ClusterTrainingRuntime/x',
  probe: false,
};

type Job = {
  name: string;
  template: {
    spec: { template: { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> } };
  };
};
const jobsOf = (patch: RuntimePatch) =>
  (patch.trainingRuntimeSpec as { template: { spec: { replicatedJobs: Job[] } } }).template.spec
    .replicatedJobs;
const podOf = (patch: RuntimePatch) => jobsOf(patch)[0]!.template.spec.template;

/** A runtime whose trainer job is not the first replicated job, to show the patch finds it by label. */
function twoJobs(): TrainerRuntime {
  const runtime = loadInputRuntime('dispatch-kind');
  const jobSet = (runtime.spec!.template as { spec: { replicatedJobs: Record<string, unknown>[] } }).spec;
  const trainer = { ...jobSet.replicatedJobs[0]!, name: 'workers' };
  jobSet.replicatedJobs = [
    { name: 'initializer', template: { spec: { template: { spec: { containers: [] } } } } },
    trainer,
  ];
  return runtime;
}

describe('runtimePatch (CONTRACT §4)', () => {
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

  it('gives container node DISPATCH_K8S_POD_NAME and DISPATCH_K8S_NODE_NAME from the downward API', () => {
    expect(podOf(patch).spec.containers).toEqual([
      {
        name: 'node',
        env: [
          { name: EnvVars.podName, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: EnvVars.nodeName, valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        ],
      },
    ]);
  });

  it('publish.via env: no init container, no node selector', () => {
    expect(Object.keys(podOf(patch).spec)).toEqual(['containers']);
  });

  it('publish.via initContainer: the configured init container gets the same two variables', () => {
    const cfg = config({ publish: { via: 'initContainer', initContainer: 'site-publisher' } });
    expect(podOf(runtimePatch(loadInputRuntime('publish'), INPUT, cfg)).spec.initContainers).toEqual([
      { name: 'site-publisher', env: placementEnv() },
    ]);
  });

  it('the preflight probe only: nodeSelector {dispatch.phpboyscout.uk/probe: never}', () => {
    const probe = runtimePatch(loadInputRuntime('dispatch-kind'), { ...INPUT, probe: true }, config());
    expect(podOf(probe).spec.nodeSelector).toEqual({ [Labels.probeNodeSelector]: 'never' });
  });

  it('refuses, naming the runtime, a runtime with no trainer job or an unnamed one', () => {
    const runtime = loadInputRuntime('dispatch-kind');
    const jobs = (runtime.spec!.template as { spec: { replicatedJobs: Record<string, unknown>[] } }).spec
      .replicatedJobs;
    delete jobs[0]!.name;
    expect(() => runtimePatch(runtime, INPUT, config())).toThrow(/^runtime ClusterTrainingRuntime\/x: /);
    expect(() => runtimePatch({}, INPUT, config())).toThrow(/^runtime ClusterTrainingRuntime\/x: /);
  });
});
