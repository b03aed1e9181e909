// StartTrainJob in plain mode against the real servers: the nine steps end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Annotations, Trainer } from '../../../src/model/constants.js';
import type { TrainJob, TrainerRuntime } from '../../../src/model/kube.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, type TestNamespace } from '../support/kube.js';

let ns: TestNamespace;
let h: DispatchHarness;

beforeAll(async () => {
  ns = await freshNamespace('plain');
  h = await startDispatch({ namespace: ns.name });
});
afterAll(async () => {
  await h?.close();
  await ns?.dispose();
});

const get = (plural: string, name: string) =>
  h.kube.custom.getNamespacedCustomObject({ group: Trainer.group, version: Trainer.version, namespace: ns.name, plural, name });

describe('StartTrainJob, plain mode (docs/start.md, steps 1-8)', () => {
  it('creates the runtime copy and a suspended TrainJob that owns it, and returns its ref and UID', async () => {
    const request = startRequest();
    const result = await h.client.startTrainJob(request);
    const name = `dj-${request.job.toLowerCase()}-s12`;
    expect(result).toMatchObject({ ref: `${ns.name}/${name}`, namespace: ns.name, name, runtimeCopy: name, mode: 'plain' });

    const trainJob = (await get(Trainer.trainJobPlural, name)) as TrainJob;
    expect(trainJob.metadata.uid).toBe(result.uid);
    expect(trainJob.spec.suspend).toBe(true);
    expect(trainJob.spec.runtimeRef).toEqual({ apiGroup: Trainer.group, kind: 'TrainingRuntime', name });
    expect(trainJob.spec.managedBy).toBe(Trainer.controllerManagedBy);

    const copy = (await get(Trainer.trainingRuntimePlural, name)) as TrainerRuntime;
    expect(copy.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'TrainJob', name, uid: result.uid, apiVersion: Trainer.apiVersion }),
    ]);
    expect(copy.metadata?.annotations?.[Annotations.sourceRuntime]).toBe('ClusterTrainingRuntime/dispatch-kind');
    expect(copy.metadata?.annotations?.[Annotations.attemptToken]).toBe(trainJob.metadata.annotations?.[Annotations.attemptToken]);
  });

  it('attaches a duplicate start of the same attempt to the running one (one workflow, one TrainJob)', async () => {
    const request = startRequest();
    const [a, b] = await Promise.all([h.client.submit(request), h.client.submit(request)]);
    expect(b.firstExecutionRunId).toBe(a.firstExecutionRunId);
    const result = await a.result();
    expect(result.uid).toBeTruthy();
  });
});
