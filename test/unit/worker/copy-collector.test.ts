// The collector of the runtime copies on MultiKueue's worker clusters (src/worker/copy-collector.ts),
// against in-memory API servers: a worker's copy goes once the manager holds neither its attempt's
// copy nor its TrainJob, and only then; a worker cluster that does not answer is named and skipped.
import { describe, expect, it } from 'vitest';
import { renderStart } from '../../../src/core/start/render.js';
import { TRAINING_RUNTIMES, TRAINJOBS } from '../../../src/kube/objects.js';
import { Annotations } from '../../../src/model/constants.js';
import { createCopyCollector } from '../../../src/worker/copy-collector.js';
import { config, exampleRequest, KUEUE, loadInputRuntime, validOf } from '../../golden/cases.js';
import { FakeCluster } from '../activities/support/fake-cluster.js';

const NS = 'ml-jobs';
const PLURAL = TRAINING_RUNTIMES.plural;
const GRACE = 30_000;
const CREATED = Date.parse('2026-01-01T00:00:00Z');

function setup(nowMs = CREATED + GRACE) {
  const manager = new FakeCluster('manager');
  const w1 = new FakeCluster('w1');
  const w2 = new FakeCluster('w2');
  const { runtimeCopy: copy, trainJob } = renderStart(validOf(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' })), loadInputRuntime('dispatch-kind'), config(KUEUE));
  const name = copy.metadata!.name!;
  for (const cluster of [manager, w1, w2]) cluster.put(PLURAL, copy);
  const collector = createCopyCollector({
    namespace: NS,
    manager: manager.kube,
    workerClusters: new Map([['w1', w1.kube], ['w2', w2.kube]]),
    requestTimeoutMs: 100,
    graceMs: GRACE,
    log: () => {},
    now: () => nowMs,
  });
  return { manager, w1, w2, copy, trainJob, name, collector };
}

describe('the collector of worker clusters\' copies', () => {
  it('keeps them while the manager holds the copy of their attempt (its Start runs, or its TrainJob owns it)', async () => {
    const { w1, w2, name, collector } = setup();
    expect(await collector.pass()).toEqual({ deleted: [], problems: [] });
    expect([w1.get(PLURAL, NS, name), w2.get(PLURAL, NS, name)].every(Boolean)).toBe(true);
  });

  it('keeps them while the manager holds the TrainJob of their attempt, even without its copy', async () => {
    const { manager, w1, name, trainJob, collector } = setup();
    manager.objects.clear();
    manager.put(TRAINJOBS.plural, trainJob);
    expect((await collector.pass()).deleted).toEqual([]);
    expect(w1.get(PLURAL, NS, name)).toBeDefined();
  });

  it('deletes them on every worker cluster once the manager holds neither (the TrainJob and its copy gone)', async () => {
    const { manager, w1, w2, name, collector } = setup();
    manager.objects.clear();
    expect((await collector.pass()).deleted.sort()).toEqual([`TrainingRuntime ${NS}/${name} on worker cluster w1`, `TrainingRuntime ${NS}/${name} on worker cluster w2`]);
    expect([w1.objects.size, w2.objects.size]).toEqual([0, 0]);
  });

  it("the manager's copy of another attempt does not keep them", async () => {
    const { manager, w1, name, copy, collector } = setup();
    manager.objects.clear();
    manager.put(PLURAL, { ...copy, metadata: { ...copy.metadata, annotations: { [Annotations.attemptToken]: '9-999999999999' } } });
    await collector.pass();
    expect(w1.get(PLURAL, NS, name)).toBeUndefined();
  });

  it('keeps a copy younger than the grace, and one with an owner on its worker cluster', async () => {
    const young = setup(CREATED + GRACE - 1);
    young.manager.objects.clear();
    expect((await young.collector.pass()).deleted).toEqual([]);

    const { manager, w1, name, collector } = setup();
    manager.objects.clear();
    const owned = w1.get(PLURAL, NS, name)!;
    w1.objects.set(`${PLURAL}/${NS}/${name}`, { ...owned, metadata: { ...owned.metadata, ownerReferences: [{ apiVersion: 'v', kind: 'TrainJob', name, uid: 'w1-job' }] } });
    expect((await collector.pass()).deleted).toEqual([`TrainingRuntime ${NS}/${name} on worker cluster w2`]);
    expect(w1.get(PLURAL, NS, name)).toBeDefined();
  });

  it('a worker cluster that does not answer is named, the others collected; the next pass collects it', async () => {
    const { manager, w1, w2, name, collector } = setup();
    manager.objects.clear();
    w1.silent = true;
    const first = await collector.pass();
    expect(first.deleted).toEqual([`TrainingRuntime ${NS}/${name} on worker cluster w2`]);
    expect(first.problems).toEqual([expect.stringMatching(/^worker cluster w1: list trainingruntimes in ml-jobs: no answer from the Kubernetes API/)]);
    w1.silent = false;
    expect((await collector.pass()).deleted).toEqual([`TrainingRuntime ${NS}/${name} on worker cluster w1`]);
    expect(w2.objects.size).toBe(0);
  });

  it('an unanswered manager collects nothing', async () => {
    const { manager, w1, collector } = setup();
    manager.silent = true;
    const pass = await collector.pass();
    expect(pass.deleted).toEqual([]);
    expect(pass.problems).toHaveLength(2);
    expect(w1.objects.size).toBe(1);
  });
});
