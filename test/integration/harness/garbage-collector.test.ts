// The real garbage collector: an object owned by a TrainJob goes when the TrainJob goes, which is
// how a runtime copy is collected (docs/start.md, step 7).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Trainer } from '../../../src/model/constants.js';
import { waitFor } from '../../../dev/harness/process.js';
import { freshNamespace, kubeConfig, type TestNamespace } from '../support/kube.js';
import { minimalTrainJob, trainerObjects, trainingRuntime } from '../support/trainer.js';

let ns: TestNamespace;
beforeAll(async () => {
  ns = await freshNamespace('gc');
});
afterAll(async () => ns?.dispose());

it('docs/start.md, step 7: deleting the TrainJob makes the garbage collector delete the runtime it owns', async () => {
  const kc = kubeConfig();
  const jobs = trainerObjects(kc, ns.name, Trainer.trainJobPlural);
  const runtimes = trainerObjects(kc, ns.name, Trainer.trainingRuntimePlural);
  const job = await jobs.create(minimalTrainJob('owner'));
  const runtime = await trainingRuntime('owned');
  runtime.metadata = {
    ...runtime.metadata,
    ownerReferences: [{ apiVersion: Trainer.apiVersion, kind: Trainer.trainJobKind, name: 'owner', uid: job.metadata?.uid as string }],
  };
  await runtimes.create(runtime);

  await jobs.delete('owner');
  const started = Date.now();
  await waitFor(async () => ((await runtimes.find('owned')) === undefined ? true : undefined), {
    what: 'the garbage collector to delete TrainingRuntime owned',
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  // The collector watches Trainer kinds from its start, so it acts within seconds, not its 30 s rescan.
  expect(Date.now() - started).toBeLessThan(30_000);
});
