// The Watch activity (src/activities/watch-activities.ts) when the worker's watch-fed lists lag the
// API server: a TrainJob missing from them is read by name before it counts as gone, so a Watch
// begun right after Start answers the TrainJob's phase, not Absent (found by the chaos run, seed
// 1000); a 404 of that read is Absent.
import { ApiException } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../../../src/activities/index.js';
import type { KubeClients } from '../../../src/kube/clients.js';
import type { SharedLists } from '../../../src/kube/shared-lists.js';
import { renderStart } from '../../../src/core/start/render.js';
import type { KubeObject } from '../../../src/model/kube.js';
import { config, exampleRequest, loadInputRuntime, validOf } from '../../golden/cases.js';

const NOT_FOUND = new ApiException(404, 'NotFound', { reason: 'NotFound', message: 'trainjobs "x" not found' }, {});

/** A TrainJob as Start makes it, with a UID, suspended (Gated). */
function createdTrainJob(): KubeObject {
  const { trainJob } = renderStart(validOf(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' })), loadInputRuntime('dispatch-kind'), config());
  return { ...trainJob, metadata: { ...trainJob.metadata, uid: 'the-uid' } };
}

/** Activities whose shared lists never hold the TrainJob (a lagging feed), and whose reads by name answer from `reads`. */
function lagging(reads: (KubeObject | Error)[]) {
  const gets: string[] = [];
  const custom = {
    getNamespacedCustomObject: (p: { name: string }) => {
      gets.push(p.name);
      const next = reads.shift() ?? reads.at(-1);
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(structuredClone(next));
    },
  };
  const kube = { custom, server: 'fake' } as unknown as KubeClients;
  const lists: SharedLists = { find: () => Promise.resolve({ answered: 'ok', value: [] }) };
  const activities = createActivities({ kube, settings: { config: config(), latestGates: () => undefined }, requestTimeoutMs: 1000, lists });
  return { activities, gets };
}

describe('Watch with a lagging feed', () => {
  const trainJob = createdTrainJob();
  const ref = { namespace: trainJob.metadata!.namespace!, name: trainJob.metadata!.name!, uid: 'the-uid' };

  it('a TrainJob the feed has not seen yet is read by name: the Watch answers its phase (Gated), not Absent', async () => {
    const { activities, gets } = lagging([trainJob, trainJob]);
    const answer = await new MockActivityEnvironment().run(activities.watchTrainJob, { config: config(), ref, sliceMs: 60_000 });
    expect(answer).toMatchObject({ state: { ref, phase: 'Gated' } });
    expect(gets).toEqual([ref.name, ref.name]);
  });

  it('missing from the feed and answered 404 by name: Absent', async () => {
    const { activities } = lagging([trainJob, NOT_FOUND]);
    const answer = await new MockActivityEnvironment().run(activities.watchTrainJob, { config: config(), ref, sliceMs: 60_000 });
    expect(answer).toMatchObject({ outcome: { ref, phase: 'Absent' } });
  });

  it('missing from the feed, and the TrainJob of that name has another UID: Absent (ours is gone)', async () => {
    const other = { ...trainJob, metadata: { ...trainJob.metadata, uid: 'another-uid' } };
    const { activities } = lagging([trainJob, other]);
    const answer = await new MockActivityEnvironment().run(activities.watchTrainJob, { config: config(), ref, sliceMs: 60_000 });
    expect(answer).toMatchObject({ outcome: { ref, phase: 'Absent' } });
  });
});
