// Watch with MultiKueue (docs/contract.md §11, docs/multikueue.md "Operations and Watch"): where a
// Failed job's exit code is read (the worker cluster the Workload names, when configured), how long
// an unanswered worker cluster is waited for, and what a state says of a worker cluster whose
// MultiKueueCluster is not Active: first among its reasons, and only while the job has not ended.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clusterOf, type Observed, type WorkerClusterRead } from '../../../../src/core/operations/observed.js';
import { stateOf } from '../../../../src/core/operations/phase.js';
import { podsSource, waitsForWorkerPods, withoutExitCode, workerClusterNote } from '../../../../src/core/operations/worker-cluster.js';
import type { Outcome } from '../../../../src/model/operations.js';
import { arbObserved, condition, KUEUE_CONFIG, REF, T0, trainJob, workload } from '../operation-fixtures.js';

const arbName = fc.stringMatching(/^[a-z][a-z0-9-]{0,14}$/);
const running = (cluster: string, read?: WorkerClusterRead): Observed => ({
  config: KUEUE_CONFIG,
  trainJob: trainJob({ gatedBy: '', suspend: false }),
  workload: workload({ cluster, conditions: [condition('Admitted')] }),
  ...(read ? { workerCluster: read } : {}),
});
const mkc = (status?: 'True' | 'False', reason = 'ClientConnectionFailed', message = 'dial tcp 10.0.0.9:6443: connect: connection refused') => ({
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  kind: 'MultiKueueCluster',
  metadata: { name: 'worker-1' },
  ...(status ? { status: { conditions: [condition('Active', status, reason, message)] } } : {}),
});

describe('podsSource: where a Failed job\'s pods are listed', () => {
  it('property: the worker cluster the Workload names when configured; nowhere when not; the manager without one', () => {
    fc.assert(
      fc.property(arbName, fc.uniqueArray(arbName, { maxLength: 4 }), (cluster, configured) => {
        const source = podsSource(running(cluster), configured);
        if (configured.includes(cluster)) expect(source).toEqual({ on: 'worker', cluster });
        else expect(source).toMatchObject({ on: 'nowhere', cluster, why: expect.stringContaining(`worker cluster ${cluster} is not in this worker's configuration`) });
        expect(podsSource({ ...running(cluster), workload: workload() }, configured)).toEqual({ on: 'manager' });
      }),
    );
  });

  it('property: any observation without a clusterName reads the manager, as with one cluster', () => {
    fc.assert(
      fc.property(arbObserved, (observed) => {
        const source = podsSource(observed, ['worker-1']);
        // clusterOf, not a state's cluster: a state of another UID's TrainJob is Absent without one, and
        // Watch never reaches outcomeOf with it (firstRead answers Absent before).
        const named = clusterOf(observed).cluster;
        expect(source.on).toBe(named === undefined ? 'manager' : named === 'worker-1' ? 'worker' : 'nowhere');
      }),
    );
  });
});

describe('waitsForWorkerPods', () => {
  it('property: waits exactly while less than the bound has passed since the failure; an unparsed time never', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: -1e6, max: 1e7 }), fc.integer({ min: 1, max: 1e6 }), (at, after, bound) => {
        expect(waitsForWorkerPods(at, at + after, bound)).toBe(after < bound);
        expect(waitsForWorkerPods(Number.NaN, at, bound)).toBe(false);
      }),
    );
  });
});

describe('withoutExitCode', () => {
  it('property: drops the exit code, keeps everything else, and adds why to the message', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 1, max: 255 }), { nil: undefined }), fc.string(), fc.string({ minLength: 1 }), (exitCode, message, why) => {
        const outcome: Outcome = { ref: REF, phase: 'Failed', reason: 'Failed', message, finishedAt: T0, cluster: 'worker-1', ...(exitCode === undefined ? {} : { exitCode }) };
        const { message: said, ...rest } = withoutExitCode(outcome, why);
        const { message: _m, exitCode: _e, ...kept } = outcome;
        expect(rest).toEqual(kept);
        expect(said).toBe(message === '' ? `exit code not read: ${why}` : `${message}; exit code not read: ${why}`);
      }),
    );
  });
});

describe('a worker cluster Kueue may have lost', () => {
  it('names the cluster, the condition and what Kueue does, first among the reasons of a running job', () => {
    const state = stateOf(REF, running('worker-1', { name: 'worker-1', found: mkc('False') }));
    expect(state).toMatchObject({ phase: 'Running', cluster: 'worker-1' });
    expect(state.reasons[0]).toBe(
      'worker cluster worker-1 lost: MultiKueueCluster worker-1 Active=False (ClientConnectionFailed: dial tcp 10.0.0.9:6443: connect: connection refused): Kueue requeues or fails the job after its workerLostTimeout',
    );
    expect(state.reasons.slice(1)).toEqual(stateOf(REF, running('worker-1')).reasons);
  });

  it('says so for no condition, no MultiKueueCluster, and one not read; nothing while Active, or for another cluster', () => {
    const note = (read: WorkerClusterRead) => workerClusterNote(read, running('worker-1'));
    expect(note({ name: 'worker-1', found: mkc() })).toMatch(/^worker cluster worker-1 lost: MultiKueueCluster worker-1 no condition Active: Kueue requeues/);
    expect(note({ name: 'worker-1', absent: true })).toMatch(/^worker cluster worker-1 lost: no MultiKueueCluster worker-1 on the manager/);
    expect(note({ name: 'worker-1', unread: 'HTTP 403 Forbidden' })).toBe('worker cluster worker-1 not known to be reached: its MultiKueueCluster was not read (HTTP 403 Forbidden)');
    expect(note({ name: 'worker-1', found: mkc('True', 'Active', 'Connected') })).toBeUndefined();
    expect(note({ name: 'worker-2', found: mkc('False') })).toBeUndefined();
  });

  it('property: a note appears exactly for a job that has not ended, on the cluster read, not Active; the phase and the rest are unchanged', () => {
    fc.assert(
      fc.property(arbObserved, fc.constantFrom<'True' | 'False' | undefined>('True', 'False', undefined), (observed, status) => {
        const without = stateOf(REF, observed);
        const name = without.cluster ?? 'worker-1';
        const withRead = stateOf(REF, { ...observed, workerCluster: { name, found: mkc(status) } });
        const ended = ['Succeeded', 'Failed', 'Absent'].includes(without.phase);
        const noted = !ended && without.cluster !== undefined && status !== 'True';
        expect(withRead.phase).toBe(without.phase);
        expect(withRead.reasons).toEqual(noted ? [expect.stringMatching(/^worker cluster \S+ lost: /), ...without.reasons] : without.reasons);
      }),
    );
  });
});
