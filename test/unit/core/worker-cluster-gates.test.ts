// The backend gates per MultiKueue worker cluster (src/core/worker-cluster-gates.ts): what the gauge
// dispatch_worker_cluster_gate_proven reports and how /readyz names a worker cluster that fails its
// reviews. A worker cluster is proven only when the write gate is (its reviews there were made and
// allowed) and no reason of the preflight names it; a longer name does not count as it.
import { describe, expect, it } from 'vitest';
import { backendHealth } from '../../../src/core/health.js';
import { namesWorkerCluster, workerClusterGates } from '../../../src/core/worker-cluster-gates.js';
import type { BackendGates } from '../../../src/model/results.js';
import { createDispatchMetrics } from '../../../src/observability/metrics.js';

const AT = '2026-12-04T12:00:00.000Z';
const PROVEN: BackendGates = { reach: true, write: true, start: true, reasons: [], checkedAt: AT };
const DENIED: BackendGates = {
  reach: true,
  write: false,
  start: false,
  reasons: ['write: worker cluster worker-1: not allowed to list trainingruntimes in namespace ml-jobs'],
  checkedAt: AT,
};
const NAMES = ['worker-1', 'worker-10', 'worker-2'];

describe('worker cluster gates', () => {
  it('a reason names a worker cluster only by its whole name', () => {
    expect(namesWorkerCluster('write: worker cluster worker-1: not allowed', 'worker-1')).toBe(true);
    expect(namesWorkerCluster('start: step 5: worker cluster worker-1 did not answer', 'worker-1')).toBe(true);
    expect(namesWorkerCluster('write: worker cluster worker-10: not allowed', 'worker-1')).toBe(false);
    expect(namesWorkerCluster('write: worker cluster worker-1.east: not allowed', 'worker-1')).toBe(false);
    expect(namesWorkerCluster('write: worker cluster worker-10: x; worker cluster worker-1 too', 'worker-1')).toBe(true);
  });

  it('proven while the write gate is and no reason names it; a write gate unproven for the manager leaves every one unproven; none before a preflight', () => {
    expect(workerClusterGates(PROVEN, NAMES)).toEqual(new Map([['worker-1', true], ['worker-10', true], ['worker-2', true]]));
    // A denial on one worker cluster fails the write gate: the reviews of the others may not have mattered, but Starts are refused all the same.
    expect([...workerClusterGates(DENIED, NAMES).values()]).toEqual([false, false, false]);
    const probeFailedOnOne: BackendGates = { ...PROVEN, start: false, reasons: ['start: worker cluster worker-2 did not answer step 5'], startUnknown: true };
    expect(workerClusterGates(probeFailedOnOne, NAMES)).toEqual(new Map([['worker-1', true], ['worker-10', true], ['worker-2', false]]));
    const managerSilent: BackendGates = { ...PROVEN, write: false, start: false, writeUnknown: true, reasons: ['write: no answer'] };
    expect([...workerClusterGates(managerSilent, NAMES).values()]).toEqual([false, false, false]);
    expect(workerClusterGates(undefined, NAMES).size).toBe(0);
  });

  it("/readyz's backend names the worker cluster and the permission it lacks", () => {
    expect(backendHealth({ gates: DENIED, sinceStartMs: 1 })).toEqual({
      ok: false,
      reasons: [`gates: write, start not proven at ${AT}`, 'gates: write: worker cluster worker-1: not allowed to list trainingruntimes in namespace ml-jobs'],
    });
  });

  it('the gauge dispatch_worker_cluster_gate_proven has one series per configured worker cluster, none without them', async () => {
    let gates: BackendGates | undefined;
    const metrics = createDispatchMetrics();
    metrics.observe({ gates: () => gates, workerClusters: ['worker-1', 'worker-2'] });
    const series = async () => (await metrics.registry.getSingleMetric('dispatch_worker_cluster_gate_proven')!.get()).values.map((v) => [v.labels.cluster, v.value]);
    expect(await series()).toEqual([]);
    gates = { ...DENIED, reasons: ['write: worker cluster worker-2: not allowed to create trainingruntimes in namespace ml-jobs'], write: false };
    expect(await series()).toEqual([['worker-1', 0], ['worker-2', 0]]);
    gates = { ...PROVEN, start: false, reasons: ['start: step 5: worker cluster worker-2 refused'] };
    expect(await series()).toEqual([['worker-1', 1], ['worker-2', 0]]);
    gates = PROVEN;
    expect(await series()).toEqual([['worker-1', 1], ['worker-2', 1]]);

    const single = createDispatchMetrics();
    single.observe({ gates: () => PROVEN });
    expect((await single.registry.getSingleMetric('dispatch_worker_cluster_gate_proven')!.get()).values).toEqual([]);
  });
});
