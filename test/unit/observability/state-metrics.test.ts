// The gauges read at each scrape from what the worker holds (src/observability/state-metrics.ts):
// here the MultiKueue ones, per worker cluster, and none at all without worker clusters.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createStateMetrics } from '../../../src/observability/state-metrics.js';

const series = async (registry: Registry, name: string) =>
  (await registry.getSingleMetric(name)!.get()).values.map((v) => ({ cluster: v.labels.cluster, value: v.value }));

describe('dispatch_worker_cluster_pod_feed_in_step', () => {
  it("reports each worker cluster's pod feed as the pod watch last found it, at every scrape", async () => {
    const registry = new Registry();
    const metrics = createStateMetrics(registry);
    const feeds = new Map([
      ['worker-1', true],
      ['worker-2', false],
    ]);
    metrics.observe({ podFeeds: () => feeds });
    expect(await series(registry, 'dispatch_worker_cluster_pod_feed_in_step')).toEqual([
      { cluster: 'worker-1', value: 1 },
      { cluster: 'worker-2', value: 0 },
    ]);
    feeds.set('worker-1', false);
    expect(await series(registry, 'dispatch_worker_cluster_pod_feed_in_step')).toContainEqual({ cluster: 'worker-1', value: 0 });
  });

  it('has no series without worker clusters', async () => {
    const registry = new Registry();
    createStateMetrics(registry).observe({});
    expect(await series(registry, 'dispatch_worker_cluster_pod_feed_in_step')).toEqual([]);
  });
});
