// A lost worker cluster wakes its Watches (src/worker/worker-cluster-wakes.ts,
// src/core/operations/worker-cluster-changes.ts; docs/multikueue.md): each poll reads the configured
// MultiKueueClusters; a change of one's Active state (status and reason, not the message) wakes the
// Watches of the TrainJobs whose Workload Kueue placed on it, once per change; a read that does not
// answer changes nothing; a change heard while the Workloads are not at hand is told once they are.
import { describe, expect, it } from 'vitest';
import type { WorkerClusterRead } from '../../../src/core/operations/observed.js';
import { activeStateOf, trainJobsPlacedOn, wakesOnChange } from '../../../src/core/operations/worker-cluster-changes.js';
import type { KubeObject } from '../../../src/model/kube.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import { createWorkerClusterWakes } from '../../../src/worker/worker-cluster-wakes.js';

const mkc = (name: string, status: string, reason: string, message = ''): WorkerClusterRead => ({
  name,
  found: { metadata: { name }, status: { conditions: [{ type: 'Active', status, reason, message }] } } as KubeObject,
});
const workload = (job: string, cluster?: string): KubeObject =>
  ({
    metadata: { name: `trainjob-${job}`, namespace: 'ml-jobs', ownerReferences: [{ kind: 'TrainJob', name: job, uid: `uid-${job}`, apiVersion: 'trainer.kubeflow.org/v1alpha1' }] },
    status: cluster ? { clusterName: cluster } : {},
  }) as KubeObject;

describe('what a MultiKueueCluster change means', () => {
  it('its state: active, status/reason, absent; unread says nothing', () => {
    expect(activeStateOf(mkc('w', 'True', 'Active'))).toBe('active');
    expect(activeStateOf(mkc('w', 'False', 'ClientConnectionFailed', 'dial tcp: refused'))).toBe('False/ClientConnectionFailed');
    expect(activeStateOf(mkc('w', 'False', 'ClientConnectionFailed', 'another text'))).toBe('False/ClientConnectionFailed');
    expect(activeStateOf({ name: 'w', absent: true })).toBe('absent');
    expect(activeStateOf({ name: 'w', unread: 'HTTP 403' })).toBeUndefined();
  });

  it('wakes on a change; on the first read only when not active; never on an unread', () => {
    expect(wakesOnChange(undefined, 'active')).toBe(false);
    expect(wakesOnChange(undefined, 'False/X')).toBe(true);
    expect(wakesOnChange('active', 'False/X')).toBe(true);
    expect(wakesOnChange('False/X', 'active')).toBe(true);
    expect(wakesOnChange('False/X', 'False/X')).toBe(false);
    expect(wakesOnChange('active', undefined)).toBe(false);
  });

  it("the TrainJobs placed on the cluster, by their Workload's clusterName and owner", () => {
    const all = [workload('a', 'worker-1'), workload('b', 'worker-2'), workload('c'), workload('d', 'worker-1')];
    expect(trainJobsPlacedOn('worker-1', all)).toEqual([
      { namespace: 'ml-jobs', name: 'a', uid: 'uid-a' },
      { namespace: 'ml-jobs', name: 'd', uid: 'uid-d' },
    ]);
  });
});

describe('the poller', () => {
  function setup() {
    const states = new Map<string, WorkerClusterRead>([
      ['worker-1', mkc('worker-1', 'True', 'Active')],
      ['worker-2', mkc('worker-2', 'True', 'Active')],
    ]);
    let workloads: KubeObject[] | undefined = [workload('a', 'worker-1'), workload('b', 'worker-2'), workload('c', 'worker-1')];
    const woken: string[] = [];
    const reads: string[] = [];
    const wakes = createWorkerClusterWakes({
      clusters: ['worker-1', 'worker-2'],
      read: async (name) => (reads.push(name), states.get(name)!),
      workloads: () => workloads,
      wake: (ref: TrainJobRef) => void woken.push(ref.name),
    });
    return { states, wakes, woken, reads, setWorkloads: (w: KubeObject[] | undefined) => (workloads = w) };
  }

  it('wakes the Watches of the lost cluster once per change, and again when it comes back; nothing for the other cluster', async () => {
    const { states, wakes, woken, reads } = setup();
    await wakes.poll();
    expect(woken).toEqual([]);
    expect(reads).toEqual(['worker-1', 'worker-2']);
    states.set('worker-1', mkc('worker-1', 'False', 'ClientConnectionFailed', 'refused'));
    await wakes.poll();
    expect(woken).toEqual(['a', 'c']);
    // Kueue rewrites the message while the cluster stays lost: no new wake.
    states.set('worker-1', mkc('worker-1', 'False', 'ClientConnectionFailed', 'refused again, another text'));
    await wakes.poll();
    await wakes.poll();
    expect(woken).toEqual(['a', 'c']);
    states.set('worker-1', mkc('worker-1', 'True', 'Active'));
    await wakes.poll();
    expect(woken).toEqual(['a', 'c', 'a', 'c']);
  });

  it('a read that does not answer changes nothing (no wake storm from a flaky manager)', async () => {
    const { states, wakes, woken } = setup();
    await wakes.poll();
    states.set('worker-1', { name: 'worker-1', unread: 'no answer' });
    await wakes.poll();
    states.set('worker-1', mkc('worker-1', 'True', 'Active'));
    await wakes.poll();
    expect(woken).toEqual([]);
  });

  it('a change heard while the Workloads are not at hand (feed not in step) is told at the first poll that has them', async () => {
    const { states, wakes, woken, setWorkloads } = setup();
    await wakes.poll();
    setWorkloads(undefined);
    states.set('worker-2', mkc('worker-2', 'False', 'BadConfig'));
    await wakes.poll();
    expect(woken).toEqual([]);
    setWorkloads([workload('b', 'worker-2')]);
    await wakes.poll();
    expect(woken).toEqual(['b']);
    await wakes.poll();
    expect(woken).toEqual(['b']);
  });

  it('a worker that starts with a cluster already lost wakes its Watches once', async () => {
    const { states, wakes, woken } = setup();
    states.set('worker-1', { name: 'worker-1', absent: true });
    await wakes.poll();
    await wakes.poll();
    expect(woken).toEqual(['a', 'c']);
  });
});
