// Seed 000, "The preflight probe": a Start like any other, with a spec of its own, whose runtime
// patch adds a node selector no node matches.
import { describe, expect, it } from 'vitest';
import { PROBE_JOB_ID, probeRequest, renderProbe } from '../../../../src/core/start/probe.js';
import { renderStart } from '../../../../src/core/start/render.js';
import { Labels } from '../../../../src/model/constants.js';
import { StartRequestSchema } from '../../../../src/model/request.js';
import { config, loadInputRuntime } from '../../../golden/cases.js';
import { validateTrainingRuntime, validateTrainJob } from '../../../support/crd-schema.js';

const podSpecOfPatch = (patch: unknown) =>
  (
    patch as {
      trainingRuntimeSpec: {
        template: {
          spec: { replicatedJobs: { template: { spec: { template: { spec: Record<string, unknown> } } } }[] };
        };
      };
    }
  ).trainingRuntimeSpec.template.spec.replicatedJobs[0]!.template.spec.template.spec;

describe('probeRequest', () => {
  const valid = probeRequest(config());

  it('is a valid StartRequest with the fixed JobID, generation 0', () => {
    expect(StartRequestSchema.safeParse(valid.request).success).toBe(true);
    expect(valid.request.job).toBe(PROBE_JOB_ID);
    expect(valid.request.generation).toBe(0);
  });

  it('docs/start.md: the image dispatch.invalid/never:probe, the command true, one node, submission 1, attempt 1', () => {
    expect(valid.image).toBe('dispatch.invalid/never:probe');
    expect(valid.request.spec.command).toEqual(['true']);
    expect(valid.request.spec.nodes).toBe(1);
    expect(valid.request.submission).toBe(1);
    expect(valid.request.attempt).toBe(1);
  });

  it('docs/start.md: the runtime named by probeRuntime', () => {
    expect(valid.runtime).toEqual({ kind: 'ClusterTrainingRuntime', name: 'dispatch-probe' });
    expect(probeRequest(config({ probeRuntime: 'TrainingRuntime/site-probe' })).runtime).toEqual({
      kind: 'TrainingRuntime',
      name: 'site-probe',
    });
  });
});

describe('renderProbe', () => {
  const { trainJob, runtimeCopy } = renderProbe(loadInputRuntime('dispatch-probe'), config());

  it('docs/start.md: its runtime patch adds the node selector dispatch.phpboyscout.uk/probe: never', () => {
    expect(podSpecOfPatch(trainJob.spec.runtimePatches[0]).nodeSelector).toEqual({
      [Labels.probeNodeSelector]: 'never',
    });
  });

  it('is named for the probe JobID and otherwise renders as any Start', () => {
    expect(trainJob.metadata.name).toBe('dj-0000000000dspatchpr0be0000-s1');
    expect(trainJob.spec.trainer.image).toBe('dispatch.invalid/never:probe');
    expect(trainJob.spec.trainer.command.slice(4)).toEqual(['true']);
    expect(trainJob.spec.trainer.numNodes).toBe(1);
    expect(trainJob.spec.suspend).toBe(true);
  });

  it("a job's Start never carries the probe node selector", () => {
    const job = renderStart(probeRequest(config()), loadInputRuntime('dispatch-probe'), config());
    expect(podSpecOfPatch(job.trainJob.spec.runtimePatches[0])).not.toHaveProperty('nodeSelector');
  });

  it('validates against the Trainer v2.3.0 CRDs', () => {
    expect(validateTrainJob(trainJob)).toEqual([]);
    expect(validateTrainingRuntime(runtimeCopy)).toEqual([]);
  });
});
