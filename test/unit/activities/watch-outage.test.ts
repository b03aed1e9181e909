// Watch never gives up on an API that does not answer (docs/contract.md §9a), and is not silent
// about it: the activity (src/activities/watch-activities.ts) keeps trying its first read, counts
// each unanswered call, and returns once the silence has lasted timeouts.call, saying since when,
// for the workflow to show; called again while the workflow shows it, it returns as soon as the
// API answers. A ref whose name now belongs to another UID is Absent at once.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { KubeClients } from '../../../src/kube/clients.js';
import { ApiException } from '@kubernetes/client-node';
import { watchActivities, type WatchCall } from '../../../src/activities/watch-activities.js';
import { watchCheckActivities } from '../../../src/activities/watch-check.js';
import { BatchedLists } from '../../../src/kube/batched-lists.js';
import { config } from '../../golden/cases.js';
import { OTHER_UID, REF, trainJob } from '../core/operation-fixtures.js';

const CONFIG = config({ timeouts: { call: '1s', workload: '60s' } });

const refused = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }));
/** What a restarted API server answers until its authorizer has synced (docs/reliability.md). */
const forbidden = () =>
  Promise.reject(
    new ApiException(403, 'Forbidden', { reason: 'Forbidden', message: 'trainjobs.trainer.kubeflow.org "x" is forbidden: User "dispatch" cannot get resource "trainjobs"' }, {}),
  );

/** A fake API whose TrainJob reads fail as `failing` says `silent` times, then answer `answer`. */
function watchOf(silent: number, answer: () => Promise<unknown>, failing: () => Promise<never> = refused) {
  let reads = 0;
  const custom = {
    getNamespacedCustomObject: () => (reads++ < silent ? failing() : answer()),
  };
  const kube = { custom, server: 'fake' } as unknown as KubeClients;
  const counted: WatchCall[] = [];
  const statuses: (number | undefined)[] = [];
  const env = { kube, requestTimeoutMs: 500 };
  const count = (call: WatchCall, status?: number) => (counted.push(call), statuses.push(status));
  const { watchTrainJob } = watchActivities(env, new BatchedLists(kube, 500), count);
  const { checkWatchedTrainJob } = watchCheckActivities(env, new BatchedLists(kube, 500), count);
  return { watchTrainJob, checkWatchedTrainJob, counted, statuses, reads: () => reads };
}

const otherUid = () => Promise.resolve(trainJob({ uid: OTHER_UID, suspend: false }));

describe('Watch through an API that does not answer', () => {
  it('keeps trying the first read, counts each unanswered call, and returns after timeouts.call saying since when', async () => {
    const watch = watchOf(1_000, otherUid);
    const t0 = Date.now();
    const answer = await new MockActivityEnvironment().run(watch.watchTrainJob, { config: CONFIG, ref: REF, sliceMs: 60_000 });
    expect(answer).toMatchObject({ unanswered: { since: expect.any(String), problem: expect.stringContaining('ECONNREFUSED') } });
    const since = Date.parse((answer as { unanswered: { since: string } }).unanswered.since);
    expect(since).toBeGreaterThanOrEqual(t0 - 1);
    expect(Date.now() - since).toBeGreaterThanOrEqual(1_000);
    expect(watch.counted.length).toBeGreaterThanOrEqual(2);
    expect(new Set(watch.counted)).toEqual(new Set(['read']));
  }, 20_000);

  it('called again while the workflow shows the silence, answers as soon as the API does: a name now another UID’s is Absent', async () => {
    const watch = watchOf(1, otherUid);
    const answer = await new MockActivityEnvironment().run(watch.watchTrainJob, {
      config: CONFIG,
      ref: REF,
      sliceMs: 60_000,
      unansweredSince: new Date(Date.now() - 5_000).toISOString(),
    });
    expect(answer).toMatchObject({ outcome: { ref: REF, phase: 'Absent' } });
    expect(watch.counted).toEqual(['read']);
  }, 20_000);

  // docs/contract.md §9c: a Watch ends only with an Outcome, also on a definite answer that may pass.
  it('an RBAC 403 (a restarted API server before its authorizer syncs) is waited out like silence, counted with its status, and the outcome follows', async () => {
    const watch = watchOf(1_000, otherUid, forbidden);
    const answer = await new MockActivityEnvironment().run(watch.watchTrainJob, { config: CONFIG, ref: REF, sliceMs: 60_000 });
    expect(answer).toMatchObject({ unanswered: { since: expect.any(String), problem: expect.stringContaining('HTTP 403') } });
    expect(new Set(watch.statuses)).toEqual(new Set([403]));

    // Called again while the workflow shows it: the outcome as soon as the API stops refusing.
    const passing = watchOf(1, otherUid, forbidden);
    const shown = new Date(Date.now() - 5_000).toISOString();
    expect(await new MockActivityEnvironment().run(passing.watchTrainJob, { config: CONFIG, ref: REF, sliceMs: 60_000, unansweredSince: shown })).toMatchObject({
      outcome: { ref: REF, phase: 'Absent' },
    });
    expect(passing.statuses).toEqual([403]);

    // The woken Watch's one read: the same refusal is a wait, not an ending.
    const woken = watchOf(1, otherUid, forbidden);
    expect(await new MockActivityEnvironment().run(woken.checkWatchedTrainJob, { config: CONFIG, ref: REF })).toEqual({
      unanswered: { problem: expect.stringContaining('HTTP 403') },
    });
  }, 20_000);

  it('a ref whose name now belongs to another UID is Absent at once', async () => {
    const watch = watchOf(0, otherUid);
    const answer = await new MockActivityEnvironment().run(watch.watchTrainJob, { config: CONFIG, ref: REF, sliceMs: 60_000 });
    expect(answer).toMatchObject({ outcome: { ref: REF, phase: 'Absent', reason: 'NotFound', message: expect.stringContaining(`has UID "${OTHER_UID}"`) } });
    expect(watch.reads()).toBe(1);
  });
});
