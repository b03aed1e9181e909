// The real CRDs are in force, and the sample runtimes dev:up applies pass the real schema and
// every rule of docs/runtime-rules.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../../src/model/config.js';
import { Trainer } from '../../../src/model/constants.js';
import { checkRuntime } from '../../../src/core/start/runtime-rules.js';
import { applySamples, readSamples } from '../../../dev/harness/samples.js';
import { freshNamespace, kubeAccess, kubeConfig, type TestNamespace } from '../support/kube.js';
import { stackInfo } from '../support/context.js';
import { minimalTrainJob, trainerObjects } from '../support/trainer.js';

describe('real schema', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = await freshNamespace('schema');
  });
  afterAll(async () => ns?.dispose());

  it('docs/contract.md §4a: the CRD defaults spec.managedBy on a TrainJob created without it', async () => {
    const jobs = trainerObjects(kubeConfig(), ns.name, Trainer.trainJobPlural);
    const created = (await jobs.create(minimalTrainJob('defaulted'))) as { spec?: { managedBy?: string } };
    expect(created.spec?.managedBy).toBe(Trainer.controllerManagedBy);
  });

  it('rejects a spec.managedBy the schema does not allow (its CEL rule is in force)', async () => {
    const jobs = trainerObjects(kubeConfig(), ns.name, Trainer.trainJobPlural);
    const job = minimalTrainJob('other-manager');
    (job.spec as Record<string, unknown>).managedBy = 'someone.else/controller';
    await expect(jobs.create(job)).rejects.toMatchObject({ code: 422 });
  });
});

describe('sample runtimes', () => {
  it('are applied to the cluster by the test run, with the Kueue samples', () => {
    expect(stackInfo().samples.sort()).toEqual([
      'AdmissionCheck/dispatch',
      'ClusterQueue/dispatch',
      'ClusterTrainingRuntime/dispatch-kind',
      'ClusterTrainingRuntime/dispatch-probe',
      'ClusterTrainingRuntime/dispatch-torch',
      'LocalQueue/user-queue',
      'ResourceFlavor/default-flavor',
    ]);
  });

  it('pass the real CRD schema with strict field validation', async () => {
    await expect(applySamples(kubeAccess(), { dryRun: true })).resolves.toHaveLength(3);
  });

  it('docs/runtime-rules.md, every rule: each sample runtime passes', async () => {
    const config = ConfigSchema.parse({ namespace: 'dispatch' });
    for (const runtime of await readSamples()) {
      const name = runtime.metadata?.name as string;
      const verdict = checkRuntime(runtime, { kind: Trainer.clusterTrainingRuntimeKind, name }, config);
      expect(verdict.reasons, name).toEqual([]);
      expect(verdict.weakened, name).toBeUndefined();
      expect(verdict.torch, name).toBe(name === 'dispatch-torch');
    }
  });
});
