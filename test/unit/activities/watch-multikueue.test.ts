// Watch with MultiKueue (docs/contract.md §11, docs/multikueue.md "Operations and Watch"), its
// activities against in-memory API servers, one a cluster: a Failed job's exit code comes from the
// pods of the worker cluster its Workload names (MultiKueue's copy ran there; the manager has
// none), waited for while that cluster does not answer, but only for timeouts.call after the
// failure; and a running job whose worker cluster's MultiKueueCluster is not Active says so first
// in its state's reasons. Without kueue.multiKueue nothing of this is asked.
import { ApiException } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { operationActivities } from '../../../src/activities/operation-activities.js';
import { watchActivities, type WatchCall } from '../../../src/activities/watch-activities.js';
import { planOpen } from '../../../src/core/operations/plans.js';
import { watchCheckActivities } from '../../../src/activities/watch-check.js';
import { MultiKueueClusterReads } from '../../../src/activities/worker-cluster-reads.js';
import { BatchedLists } from '../../../src/kube/batched-lists.js';
import { TRAINJOBS } from '../../../src/kube/objects.js';
import type { Config } from '../../../src/model/config.js';
import { config, KUEUE } from '../../golden/cases.js';
import { condition, JOB_ID, NS, pod, REF, trainJob, workload } from '../core/operation-fixtures.js';
import { Labels } from '../../../src/model/constants.js';
import { FakeCluster } from './support/fake-cluster.js';
import { ExitCodeMemory } from '../../../src/worker/exit-code-memory.js';

const base = config(KUEUE);
const MULTIKUEUE: Config = {
  ...base,
  timeouts: { ...base.timeouts, call: '1s' },
  kueue: { ...base.kueue, multiKueue: { clusters: [{ name: 'worker-1', kubeconfig: '/w1' }, { name: 'worker-2', kubeconfig: '/w2' }] } },
};
const ONE_CLUSTER: Config = { ...base, timeouts: { ...base.timeouts, call: '1s' } };

const failed = (at: string) => trainJob({ gatedBy: '', suspend: false, conditions: [condition('Failed', 'True', 'JobFailed', 'jobset failed', at)] });
const running = () => trainJob({ gatedBy: '', suspend: false });
const mkc = (status: 'True' | 'False', reason: string, message: string) => ({
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  kind: 'MultiKueueCluster',
  metadata: { name: 'worker-1' },
  status: { conditions: [condition('Active', status, reason, message)] },
});

function setup(job: ReturnType<typeof trainJob>, cfg = MULTIKUEUE, exitCodes?: ExitCodeMemory) {
  const manager = new FakeCluster('manager');
  const w1 = new FakeCluster('worker-1');
  const w2 = new FakeCluster('worker-2');
  // As read, with their own UIDs (the TrainJob's is the ref's): not through put, which gives new ones.
  const keep = (plural: string, o: { metadata?: { name?: string } }) => manager.objects.set(`${plural}/${NS}/${o.metadata?.name ?? ''}`, o);
  keep(TRAINJOBS.plural, job);
  keep('workloads', workload({ cluster: 'worker-1', check: 'Ready', conditions: [condition('QuotaReserved'), condition('Admitted')] }));
  const counted: WatchCall[] = [];
  const count = (call: WatchCall) => void counted.push(call);
  const env = { kube: manager.kube, requestTimeoutMs: 100, workerClusters: new Map([['worker-1', w1.kube], ['worker-2', w2.kube]]), ...(exitCodes ? { exitCodes } : {}) };
  const check = () => new MockActivityEnvironment().run(watchCheckActivities(env, new BatchedLists(env.kube, 100), count).checkWatchedTrainJob, { config: cfg, ref: REF });
  const watch = () => new MockActivityEnvironment().run(watchActivities(env, new BatchedLists(env.kube, 100), count).watchTrainJob, { config: cfg, ref: REF, sliceMs: 5_000 });
  return { manager, w1, w2, env, check, watch, counted };
}

describe("a Failed job's exit code with MultiKueue", () => {
  it("comes from the pods of the worker cluster the Workload names, never the manager's (the woken check and the heartbeating Watch)", async () => {
    for (const run of ['check', 'watch'] as const) {
      const { manager, w1, w2, check, watch } = setup(failed(new Date().toISOString()));
      manager.put('pods', pod('on-the-manager', { exitCode: 1 }));
      w2.put('pods', pod('on-worker-2', { exitCode: 2 }));
      w1.put('pods', pod('on-worker-1', { exitCode: 125 }));
      const answer = await (run === 'check' ? check() : watch());
      expect(answer, run).toMatchObject({ outcome: { ref: REF, phase: 'Failed', reason: 'JobFailed', message: 'jobset failed', exitCode: 125, cluster: 'worker-1' } });
      expect(manager.calls, run).not.toContain('list pods');
      expect(w2.calls, run).toEqual([]);
    }
  });

  it('a worker cluster that does not answer is waited for (unanswered, naming it) while the failure is recent', async () => {
    const { w1, check, counted } = setup(failed(new Date().toISOString()));
    w1.silent = true;
    expect(await check()).toEqual({ unanswered: { problem: expect.stringMatching(/^worker cluster worker-1: list pods in ml-jobs: no answer from the Kubernetes API \(ECONNREFUSED/) } });
    expect(counted).toEqual(['pods']);
  });

  it('past timeouts.call after the failure, the outcome comes without the exit code, its message saying why', async () => {
    const { w1, check } = setup(failed('2026-01-01T00:00:00Z'));
    w1.silent = true;
    const answer = await check();
    expect(answer).toEqual({
      outcome: {
        ref: REF,
        phase: 'Failed',
        reason: 'JobFailed',
        message: expect.stringMatching(/^jobset failed; exit code not read: worker cluster worker-1 has not answered the pod list since the job failed at 2026-01-01T00:00:00Z \(worker cluster worker-1: list pods/),
        finishedAt: '2026-01-01T00:00:00Z',
        cluster: 'worker-1',
      },
    });
  });

  it('a worker cluster that answers with no such pod (MultiKueue deleted its copy) or refuses: the outcome at once, without the exit code, saying why', async () => {
    const gone = setup(failed(new Date().toISOString()));
    const answer = await gone.check();
    expect(answer).toMatchObject({ outcome: { phase: 'Failed', message: expect.stringContaining('exit code not read: no pod labelled dispatch.phpboyscout.uk/job-id=') } });
    expect((answer as { outcome: object }).outcome).not.toHaveProperty('exitCode');

    const refusing = setup(failed(new Date().toISOString()));
    const kube = refusing.w1.kube;
    kube.core.listNamespacedPod = () => Promise.reject(new ApiException(403, 'Forbidden', { reason: 'Forbidden', message: 'pods is forbidden: User "dispatch" cannot list resource "pods"' }, {}));
    refusing.env.workerClusters.set('worker-1', kube);
    expect(await refusing.check()).toMatchObject({ outcome: { phase: 'Failed', message: expect.stringContaining('exit code not read: worker cluster worker-1 refused the pod list: HTTP 403 Forbidden: pods is forbidden') } });
  });

  it('a cluster the configuration does not name: the outcome without the exit code, naming it; without kueue.multiKueue, the manager\'s pods as ever', async () => {
    const unnamed = setup(failed(new Date().toISOString()), { ...MULTIKUEUE, kueue: { ...MULTIKUEUE.kueue, multiKueue: { clusters: [{ name: 'worker-2', kubeconfig: '/w2' }] } } });
    expect(await unnamed.check()).toMatchObject({ outcome: { message: expect.stringContaining("exit code not read: worker cluster worker-1 is not in this worker's configuration") } });
    expect([unnamed.w1.calls, unnamed.w2.calls]).toEqual([[], []]);

    const single = setup(failed(new Date().toISOString()), ONE_CLUSTER);
    single.manager.put('pods', pod('on-the-manager', { exitCode: 1 }));
    expect(await single.check()).toMatchObject({ outcome: { exitCode: 1, message: 'jobset failed' } });
    expect([single.w1.calls, single.w2.calls]).toEqual([[], []]);
  });
});

describe("a Failed job's exit code with MultiKueue, from the worker's memory of the worker cluster's pods", () => {
  /** A memory that heard, on `cluster`, the job's pod fail with `exitCode` at `at` (then MultiKueue deleted it). */
  const remembering = (cluster: string, exitCode: number, at = '2026-01-01T00:00:00Z', name = `${cluster}-gone`) => {
    const memory = new ExitCodeMemory({ keepMs: 3_600_000 });
    memory.heard(cluster, pod(name, { exitCode, finishedAt: at }));
    return memory;
  };

  it("answers with the remembered exit code when the worker cluster's pods are gone (the woken check and the heartbeating Watch)", async () => {
    for (const run of ['check', 'watch'] as const) {
      const { check, watch, w1 } = setup(failed(new Date().toISOString()), MULTIKUEUE, remembering('worker-1', 125));
      const answer = await (run === 'check' ? check() : watch());
      expect(answer, run).toEqual({ ...(run === 'watch' ? { checks: 1 } : {}), outcome: expect.objectContaining({ phase: 'Failed', message: 'jobset failed', exitCode: 125, cluster: 'worker-1' }) });
      // The list was still asked: it could hold a failure the watch missed.
      expect(w1.calls, run).toContain('list pods');
    }
  });

  it("the first failure of both, the listed pods' and the remembered one", async () => {
    const earlier = setup(failed(new Date().toISOString()), MULTIKUEUE, remembering('worker-1', 125, '2026-01-01T00:00:00Z'));
    earlier.w1.put('pods', pod('still-there', { exitCode: 1, finishedAt: '2026-01-01T00:00:09Z' }));
    expect(await earlier.check()).toMatchObject({ outcome: { exitCode: 125 } });
    const later = setup(failed(new Date().toISOString()), MULTIKUEUE, remembering('worker-1', 125, '2026-01-01T00:00:09Z'));
    later.w1.put('pods', pod('still-there', { exitCode: 1, finishedAt: '2026-01-01T00:00:00Z' }));
    expect(await later.check()).toMatchObject({ outcome: { exitCode: 1 } });
  });

  it('a worker cluster that does not answer, or refuses, the pod list: the remembered exit code at once, without waiting', async () => {
    const silent = setup(failed(new Date().toISOString()), MULTIKUEUE, remembering('worker-1', 125));
    silent.w1.silent = true;
    expect(await silent.check()).toMatchObject({ outcome: { exitCode: 125, message: 'jobset failed' } });
    expect(silent.counted).toEqual([]);

    const refusing = setup(failed(new Date().toISOString()), MULTIKUEUE, remembering('worker-1', 125));
    const kube = refusing.w1.kube;
    kube.core.listNamespacedPod = () => Promise.reject(new ApiException(403, 'Forbidden', { reason: 'Forbidden', message: 'pods is forbidden' }, {}));
    refusing.env.workerClusters.set('worker-1', kube);
    expect(await refusing.check()).toMatchObject({ outcome: { exitCode: 125, message: 'jobset failed' } });
  });

  it("only the memory of the Workload's cluster and of this job's submission counts; without either, the message says why as before", async () => {
    const otherCluster = setup(failed(new Date().toISOString()), MULTIKUEUE, remembering('worker-2', 125));
    const answer = await otherCluster.check();
    expect(answer).toMatchObject({ outcome: { message: expect.stringContaining("exit code not read: no pod labelled dispatch.phpboyscout.uk/job-id=") } });
    expect((answer as { outcome: object }).outcome).not.toHaveProperty('exitCode');
    expect((answer as { outcome: { message: string } }).outcome.message).toContain("and this worker's watch of its pods saw none");

    const otherSubmission = new ExitCodeMemory({ keepMs: 3_600_000 });
    otherSubmission.heard('worker-1', pod('s11', { exitCode: 125 }, { [Labels.jobId]: JOB_ID, [Labels.submission]: '11' }));
    expect(await setup(failed(new Date().toISOString()), MULTIKUEUE, otherSubmission).check()).not.toMatchObject({ outcome: { exitCode: expect.anything() } });
  });
});

describe("a Failed job whose Workload names no worker cluster (Kueue's webhook refused status.clusterName), with MultiKueue", () => {
  const withoutCluster = (memory?: ExitCodeMemory) => {
    const s = setup(failed(new Date().toISOString()), MULTIKUEUE, memory);
    const recorded = workload({ check: 'Ready', conditions: [condition('QuotaReserved'), condition('Admitted')] });
    s.manager.objects.set(`workloads/${NS}/${recorded.metadata?.name ?? ''}`, recorded);
    return s;
  };

  it("takes the exit code from this worker's memory of any worker cluster's pods; the manager's pods are not asked", async () => {
    const memory = new ExitCodeMemory({ keepMs: 3_600_000 });
    memory.heard('worker-2', pod('ran-there', { exitCode: 125, finishedAt: '2026-01-01T00:00:00Z' }));
    const s = withoutCluster(memory);
    const answer = await s.check();
    expect(answer).toMatchObject({ outcome: { phase: 'Failed', exitCode: 125, message: 'jobset failed' } });
    expect((answer as { outcome: object }).outcome).not.toHaveProperty('cluster');
    expect(s.manager.calls).not.toContain('list pods');
  });

  it('says why there is no exit code when no worker remembers one', async () => {
    const answer = await withoutCluster(new ExitCodeMemory({ keepMs: 3_600_000 })).check();
    expect((answer as { outcome: { message: string } }).outcome.message).toBe(
      "jobset failed; exit code not read: Kueue recorded no worker cluster for the job (its Workload has no status.clusterName), and this worker's watch of the worker clusters' pods (worker-1, worker-2) saw no node container of it terminate non-zero",
    );
    expect((answer as { outcome: object }).outcome).not.toHaveProperty('exitCode');
  });
});

describe("a running job's worker cluster, lost", () => {
  it("says so first in the state's reasons when its MultiKueueCluster is not Active; nothing while Active", async () => {
    const lost = setup(running());
    lost.manager.put('multikueueclusters', mkc('False', 'ClientConnectionFailed', 'dial tcp 10.0.0.9:6443: connect: connection refused'));
    const answer = await lost.check();
    expect(answer).toMatchObject({ state: { phase: 'Running', cluster: 'worker-1' } });
    const { reasons } = (answer as { state: { reasons: string[] } }).state;
    expect(reasons[0]).toBe(
      'worker cluster worker-1 lost: MultiKueueCluster worker-1 Active=False (ClientConnectionFailed: dial tcp 10.0.0.9:6443: connect: connection refused): Kueue requeues or fails the job after its workerLostTimeout',
    );
    expect(reasons[1]).toMatch(/condition Admitted is True/);

    const active = setup(running());
    active.manager.put('multikueueclusters', mkc('True', 'Active', 'Connected'));
    expect(((await active.check()) as { state: { reasons: string[] } }).state.reasons.join('\n')).not.toContain('worker cluster');
  });

  it('the heartbeating Watch says the same; a MultiKueueCluster the manager refuses (no permission) is said, and never ends or stalls the Watch', async () => {
    const lost = setup(running());
    lost.manager.put('multikueueclusters', mkc('False', 'BadConfig', 'kubeconfig not found'));
    expect(await lost.watch()).toMatchObject({ state: { phase: 'Running', reasons: [expect.stringMatching(/^worker cluster worker-1 lost: MultiKueueCluster worker-1 Active=False \(BadConfig/), expect.anything()] } });

    const forbidden = setup(running());
    const kube = forbidden.manager.kube;
    kube.custom.getClusterCustomObject = () => Promise.reject(new ApiException(403, 'Forbidden', { reason: 'Forbidden', message: 'multikueueclusters.kueue.x-k8s.io "worker-1" is forbidden' }, {}));
    forbidden.env.kube = kube;
    const answer = await forbidden.check();
    expect(answer).toMatchObject({ state: { phase: 'Running', reasons: [expect.stringMatching(/^worker cluster worker-1 not known to be reached: its MultiKueueCluster was not read \(HTTP 403 Forbidden/), expect.anything()] } });
  });

  it("Open's read carries the same MultiKueueCluster, so its state says so first; the plan is unchanged (answer the state)", async () => {
    const lost = setup(running());
    lost.manager.put('multikueueclusters', mkc('False', 'ClientConnectionFailed', 'connection refused'));
    const observe = () => new MockActivityEnvironment().run(operationActivities(lost.env).observeTrainJob, { config: MULTIKUEUE, ref: REF });
    const read = (await observe()) as Awaited<ReturnType<ReturnType<typeof operationActivities>['observeTrainJob']>>;
    expect(read.workerCluster).toMatchObject({ name: 'worker-1', found: { metadata: { name: 'worker-1' } } });
    const plan = planOpen(REF, { ...read, config: MULTIKUEUE });
    expect(plan).toMatchObject({ kind: 'done', state: { phase: 'Running', cluster: 'worker-1', reasons: [expect.stringMatching(/^worker cluster worker-1 lost: MultiKueueCluster worker-1 Active=False \(ClientConnectionFailed: connection refused\)/), expect.anything()] } });

    const single = setup(running(), ONE_CLUSTER);
    const plain = await new MockActivityEnvironment().run(operationActivities(single.env).observeTrainJob, { config: ONE_CLUSTER, ref: REF });
    expect(plain).not.toHaveProperty('workerCluster');
    expect(single.manager.calls).not.toContain('get multikueueclusters');
  });

  it('without kueue.multiKueue no MultiKueueCluster is read', async () => {
    const single = setup(running(), ONE_CLUSTER);
    single.manager.put('multikueueclusters', mkc('False', 'ClientConnectionFailed', 'x'));
    const answer = (await single.check()) as { state: { reasons: string[] } };
    expect(answer.state.reasons.join('\n')).not.toContain('worker cluster');
    expect(single.manager.calls).not.toContain('get multikueueclusters');
  });
});

describe('MultiKueueClusterReads', () => {
  it('one read per cluster serves every Watch for its freshness, then reads again; a refusal is an answer, never a throw', async () => {
    const manager = new FakeCluster('manager');
    manager.put('multikueueclusters', mkc('True', 'Active', 'Connected'));
    let now = 0;
    const reads = new MultiKueueClusterReads(manager.kube, 100, 3_000, () => now);
    const all = await Promise.all(Array.from({ length: 50 }, () => reads.read('v1beta2', 'worker-1')));
    expect(new Set(all).size).toBe(1);
    expect(all[0]).toMatchObject({ name: 'worker-1', found: { metadata: { name: 'worker-1' } } });
    now = 2_999;
    await reads.read('v1beta2', 'worker-1');
    expect(manager.calls).toEqual(['get multikueueclusters']);
    now = 3_000;
    expect(await reads.read('v1beta2', 'worker-2')).toEqual({ name: 'worker-2', absent: true });
    await reads.read('v1beta2', 'worker-1');
    expect(manager.calls).toEqual(['get multikueueclusters', 'get multikueueclusters', 'get multikueueclusters']);
    manager.silent = true;
    now = 10_000;
    expect(await reads.read('v1beta2', 'worker-1')).toEqual({ name: 'worker-1', unread: expect.stringContaining('no answer from the Kubernetes API') });
  });

  it('keeps of a MultiKueueCluster only its kind, name and conditions: the rest would weigh down every recorded result', async () => {
    const manager = new FakeCluster('manager');
    const full = { ...mkc('True', 'Active', 'Connected'), spec: { clusterSource: { kubeConfig: { locationType: 'Secret', location: 'worker-1-secret' } } } };
    (full.metadata as Record<string, unknown>).managedFields = [{ manager: 'kubectl', fieldsV1: { 'f:spec': {} } }];
    manager.put('multikueueclusters', full);
    const read = await new MultiKueueClusterReads(manager.kube, 100).read('v1beta2', 'worker-1');
    expect(read).toEqual({ name: 'worker-1', found: { apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'MultiKueueCluster', metadata: { name: 'worker-1' }, status: { conditions: mkc('True', 'Active', 'Connected').status.conditions } } });
  });

  it("the waker's readAnew is never served a kept read, and the reads after it are served its answer (a woken Watch reads the change)", async () => {
    const manager = new FakeCluster('manager');
    manager.put('multikueueclusters', mkc('True', 'Active', 'Connected'));
    let now = 0;
    const reads = new MultiKueueClusterReads(manager.kube, 100, 3_000, () => now);
    // A Watch read the cluster a moment before Kueue lost it.
    expect(await reads.read('v1beta2', 'worker-1')).toMatchObject({ found: { status: { conditions: [{ status: 'True' }] } } });
    manager.put('multikueueclusters', mkc('False', 'ClientConnectionFailed', 'dial tcp: connection refused'));
    now = 1_000;
    // The waker's poll, within that read's freshness, reads the change...
    expect(await reads.readAnew('v1beta2', 'worker-1')).toMatchObject({ found: { status: { conditions: [{ status: 'False' }] } } });
    // ...and the Watch it wakes is served it, not the read kept from before.
    expect(await reads.read('v1beta2', 'worker-1')).toMatchObject({ found: { status: { conditions: [{ status: 'False' }] } } });
    expect(manager.calls).toEqual(['get multikueueclusters', 'get multikueueclusters']);
  });
});
