// Watch with MultiKueue on the real parts (docs/multikueue.md, "Operations and Watch"): the
// manager's MultiKueueCluster of a worker cluster, read as Watch reads it (kueue.x-k8s.io,
// kueue.workloadVersion, cluster-scoped, by name), says Active while Kueue reaches the worker, and a
// name Kueue has no cluster of is absent. The exit code on the worker's pods is exercised by the
// lifecycle tests (lifecycle.test.ts).
import { describe, expect, it } from 'vitest';
import { MultiKueueClusterReads } from '../../../src/activities/worker-cluster-reads.js';
import { workerClusterNote } from '../../../src/core/operations/worker-cluster.js';
import { createKubeClients, loadKubeConfig } from '../../../src/kube/clients.js';
import { condition, KUEUE_CONFIG, trainJob, workload } from '../../unit/core/operation-fixtures.js';
import { multiKueueStack } from '../support/multikueue.js';

const stack = multiKueueStack(1);

describe("Watch's read of a worker cluster's MultiKueueCluster, on the real Kueue v0.19.2", () => {
  it('finds worker-1 Active on the manager, so a job running there carries no note; a cluster Kueue does not know is absent', async () => {
    const info = stack().info;
    const worker = info.workers![0]!.name;
    const reads = new MultiKueueClusterReads(createKubeClients(loadKubeConfig(info.kube.kubeconfig)), 10_000);
    const read = await reads.read(KUEUE_CONFIG.kueue.workloadVersion, worker);
    // Kept of it: its kind, name and conditions (no spec, no managedFields), all Watch reads.
    expect(read).not.toHaveProperty('found.spec');
    expect(read).toMatchObject({ name: worker, found: { kind: 'MultiKueueCluster', metadata: { name: worker }, status: { conditions: expect.arrayContaining([expect.objectContaining({ type: 'Active', status: 'True' })]) } } });
    const observed = { config: KUEUE_CONFIG, trainJob: trainJob({ gatedBy: '', suspend: false }), workload: workload({ cluster: worker, conditions: [condition('Admitted')] }) };
    expect(workerClusterNote(read, observed)).toBeUndefined();
    expect(await reads.read(KUEUE_CONFIG.kueue.workloadVersion, 'no-such-worker')).toEqual({ name: 'no-such-worker', absent: true });
  });
});
