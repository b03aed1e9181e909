// What a feed keeps of each object (src/kube/feed.ts): a TrainJob trimmed to what the checks and the
// admission check controller decide from, so that a worker watching every dispatch TrainJob of a
// namespace does not hold every TrainJob's spec; a Workload whole but for managedFields.
import { describe, expect, it } from 'vitest';
import { itemsOf, put, type Feed } from '../../../src/kube/feed.js';
import { TRAINJOBS, workloads, type NamespacedKind } from '../../../src/kube/objects.js';
import { Labels } from '../../../src/model/constants.js';
import type { KubeObject } from '../../../src/model/kube.js';

const feedOf = (kind: NamespacedKind, label: string): Feed => ({
  kind,
  namespace: 'ml',
  label,
  state: 'watching',
  objects: new Map(),
  byValue: new Map(),
  resourceVersion: '1',
  lastHeard: 0,
  lastAsked: 0,
  retryAt: 0,
  generation: 0,
});

/** The metadata a check reads; the TrainJob below has managedFields besides. */
const metadata = {
  name: 'dj-a-s1',
  namespace: 'ml',
  uid: 'u1',
  resourceVersion: '7',
  labels: { [Labels.jobId]: 'a' },
  annotations: { 'dispatch.phpboyscout.uk/held': 'true' },
  deletionTimestamp: '2026-12-02T12:00:00Z',
};
const trainJob: KubeObject = {
  metadata: { ...metadata, managedFields: [{ manager: 'trainer' }] } as never,
  spec: { suspend: true, trainer: { image: 'x', env: [{ name: 'A', value: 'b'.repeat(1000) }] }, runtimePatches: [{}] },
  status: { conditions: [{ type: 'Complete', status: 'True' }], jobsStatus: [{ name: 'node' }] },
};

describe('a feed', () => {
  it('keeps of a TrainJob its metadata, spec.suspend and status.conditions only', () => {
    const feed = feedOf(TRAINJOBS, Labels.jobId);
    put(feed, trainJob);
    const [kept] = itemsOf(feed, 'a');
    expect(kept).toEqual({
      metadata,
      spec: { suspend: true },
      status: { conditions: [{ type: 'Complete', status: 'True' }] },
    });
  });

  it('keeps a Workload whole (its owner, spec and status) but for managedFields', () => {
    const feed = feedOf(workloads('v1beta2'), Labels.kueueJobUid);
    const workload: KubeObject = {
      metadata: {
        name: 'w',
        namespace: 'ml',
        uid: 'w1',
        labels: { [Labels.kueueJobUid]: 'u1' },
        ownerReferences: [{ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', name: 'dj-a-s1', uid: 'u1' }],
        managedFields: [{ manager: 'kueue' }],
      } as never,
      spec: { active: true, podSets: [{ name: 'node', count: 2 }] },
    };
    put(feed, workload);
    const { managedFields: _dropped, ...rest } = workload.metadata as Record<string, unknown>;
    expect(itemsOf(feed, 'u1')).toEqual([{ ...workload, metadata: rest }]);
  });
});
