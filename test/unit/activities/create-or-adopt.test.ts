// The shared create loop of steps 5 and 6 (createOrAdopt) against a scripted fake API, through the
// activities as createActivities builds them; and the one error convention: a DispatchError
// arrives as its non-retryable ApplicationFailure, an unanswered call as the retryable KubeUnanswered.
import { ApiException } from '@kubernetes/client-node';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { OperationAnnotations } from '../../../src/model/constants.js';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../../../src/activities/index.js';
import { UNANSWERED } from '../../../src/activities/failures.js';
import type { KubeClients } from '../../../src/kube/clients.js';
import { renderStart } from '../../../src/core/start/render.js';
import { kueueRuntimeNotFound, runtimeLagBudgetMs, runtimeLagPauseMs, RUNTIME_NOT_YET_SEEN } from '../../../src/core/start/runtime-lag.js';
import { Annotations } from '../../../src/model/constants.js';
import type { KubeObject } from '../../../src/model/kube.js';
import { config, exampleRequest, loadInputRuntime, validOf } from '../../golden/cases.js';

const status = (code: number, reason: string) => new ApiException(code, reason, { reason, message: reason }, {});
const CONFLICT = status(409, 'AlreadyExists');
const GONE = status(404, 'NotFound');

/** A fake API answering creates and gets from scripts, in order; records every call. */
function scripted(creates: (KubeObject | Error)[], gets: (KubeObject | Error)[]) {
  const calls: string[] = [];
  const next = (script: (KubeObject | Error)[], what: string) => {
    calls.push(what);
    const answer = script.shift();
    if (answer === undefined) throw new Error(`unscripted ${what}`);
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  };
  const custom = {
    createNamespacedCustomObject: (p: { plural: string }) => next(creates, `create ${p.plural}`),
    getNamespacedCustomObject: (p: { plural: string }) => next(gets, `get ${p.plural}`),
    deleteNamespacedCustomObject: (p: { plural: string; body: { preconditions: { uid: string } } }) => {
      calls.push(`delete ${p.plural} ${p.body.preconditions.uid}`);
      return Promise.resolve({});
    },
  };
  const kube = { custom, server: 'fake' } as unknown as KubeClients;
  const activities = createActivities({ kube, settings: { config: config(), latestGates: () => undefined }, requestTimeoutMs: 1000 });
  return { activities, calls };
}

const rendered = () =>
  renderStart(validOf(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' })), loadInputRuntime('dispatch-kind'), config());

const run = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A) => new MockActivityEnvironment().run(fn, ...args);
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the activity succeeded'),
    (e: unknown) => e,
  );

describe('createOrAdopt: the create of steps 5 and 6 after a 409', () => {
  it('step 6: gone again is created again; being deleted is waited for; our token is adopted', async () => {
    const { trainJob } = rendered();
    const deleting = { ...trainJob, metadata: { ...trainJob.metadata, uid: 'old', deletionTimestamp: '2026-01-01T00:00:00Z' } };
    const ours = { ...trainJob, metadata: { ...trainJob.metadata, uid: 'landed' } };
    const { activities, calls } = scripted([CONFLICT, CONFLICT, CONFLICT], [GONE, deleting, ours]);
    const copy = { name: trainJob.metadata.name!, uid: 'copy-uid' };
    expect(await run(activities.createTrainJob, { trainJob, copy })).toEqual({ name: copy.name, uid: 'landed', adopted: true });
    expect(calls).toEqual(['create trainjobs', 'get trainjobs', 'create trainjobs', 'get trainjobs', 'create trainjobs', 'get trainjobs']);
  });

  it("step 6: another attempt's TrainJob on our copy is ErrRejected, and the copy is kept", async () => {
    const { trainJob } = rendered();
    const theirs = {
      ...trainJob,
      metadata: { ...trainJob.metadata, uid: 'theirs', annotations: { [Annotations.attemptToken]: 'other-token' } },
    };
    const { activities, calls } = scripted([CONFLICT], [theirs]);
    const copy = { name: trainJob.metadata.name!, uid: 'copy-uid' };
    const error = await rejection(run(activities.createTrainJob, { trainJob, copy }));
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: 'ErrRejected', nonRetryable: true });
    const [details] = (error as ApplicationFailure).details as [{ reasons: string[]; step: number }];
    expect(details.step).toBe(6);
    expect(details.reasons).toEqual([expect.stringMatching(/already exists with attempt token other-token; this attempt's is /)]);
    expect(calls.filter((call) => call.startsWith('delete'))).toEqual([]);
  });

  it("step 6: Trainer's or Kueue's webhook not having seen our copy yet is tried again; after CallBound less a request's bound it is ErrUnreachable, and the copy stays for the retry", async () => {
    const { trainJob } = rendered();
    const name = trainJob.metadata.name!;
    const lag = (copy: string) =>
      new ApiException(403, 'Forbidden', {
        reason: 'Forbidden',
        message: `admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: spec.runtimeRef: Invalid value: {}: TrainingRuntime.trainer.kubeflow.org "${copy}" not found: ${RUNTIME_NOT_YET_SEEN}`,
      }, {});
    const copy = { name, uid: 'copy-uid' };
    const kueueLag = new ApiException(403, 'Forbidden', {
      reason: 'Forbidden',
      message: `admission webhook "vtrainjob.kb.io" denied the request: ${kueueRuntimeNotFound(name)}`,
    }, {});
    const seen = scripted([lag(name), kueueLag, { ...trainJob, metadata: { ...trainJob.metadata, uid: 'created' } }], []);
    expect(await run(seen.activities.createTrainJob, { trainJob, copy })).toEqual({ name, uid: 'created', adopted: false });
    expect(seen.calls).toEqual(['create trainjobs', 'create trainjobs', 'create trainjobs']);

    // Another runtime's name is not this Start's copy: refused at once, and the copy deleted.
    const other = scripted([lag('someone-else')], []);
    expect(await rejection(run(other.activities.createTrainJob, { trainJob, copy }))).toMatchObject({ type: 'ErrRejected' });
    expect(other.calls).toEqual(['create trainjobs', 'delete trainingruntimes copy-uid']);

    // A CallBound of 4 s and requests of 1 s (scripted() below): denied again and again for 3 s
    // (creates at 0, 300, 900, 2100 and 3000 ms: the fourth pause is cut from 2000 to what is
    // left), then the retryable ErrUnreachable (the webhook refused nothing: the copy exists), and
    // the copy kept for the retried Start, which adopts it at step 5.
    const callMs = 4_000;
    const never = scripted(Array.from({ length: 20 }, () => lag(name)), []);
    const t0 = Date.now();
    const error = await rejection(
      new MockActivityEnvironment({ startToCloseTimeoutMs: callMs }).run(never.activities.createTrainJob, { trainJob, copy }),
    );
    const elapsed = Date.now() - t0;
    expect(error).toMatchObject({ type: 'ErrUnreachable', nonRetryable: true });
    const [unseen] = (error as ApplicationFailure).details as [{ reasons: string[]; step: number }];
    expect(unseen.step).toBe(6);
    expect(unseen.reasons).toEqual([expect.stringContaining(`still does not see runtime copy ${name}, which exists, after 5 denial(s)`)]);
    expect(elapsed).toBeGreaterThanOrEqual(runtimeLagBudgetMs(callMs, 1000) - 50);
    expect(elapsed).toBeLessThan(callMs);
    expect(never.calls.filter((c) => c === 'create trainjobs')).toHaveLength(5);
    expect(never.calls.filter((c) => c.startsWith('delete'))).toEqual([]);
  }, 10_000);

  describe('the two limits of step 6\'s lag rule (docs/contract.md §6a)', () => {
    const { trainJob } = rendered();
    const name = trainJob.metadata.name!;
    const copy = { name, uid: 'copy-uid' };
    const lag = new ApiException(403, 'Forbidden', {
      reason: 'Forbidden',
      message: `admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: TrainingRuntime.trainer.kubeflow.org "${name}" not found: ${RUNTIME_NOT_YET_SEEN}`,
    }, {});
    const denials = () => Array.from({ length: 10 }, () => lag);
    const copyCreated = (msAgo: number) => ({ metadata: { name, uid: 'copy-uid', creationTimestamp: new Date(Date.now() - msAgo).toISOString() } });
    // CallBound 1 s, requests of 1 s: the budget is half of CallBound.
    const env = (attempt = 1) => new MockActivityEnvironment({ startToCloseTimeoutMs: 1_000, attempt });

    it('bounded: a copy older than timeouts.runtimeLag (5m) that the webhook still does not see is ErrRejected naming it, and the copy is removed', async () => {
      const old = scripted(denials(), [copyCreated(6 * 60_000)]);
      const error = await rejection(env().run(old.activities.createTrainJob, { trainJob, copy }));
      expect(error).toMatchObject({ type: 'ErrRejected' });
      const [details] = (error as ApplicationFailure).details as [{ reasons: string[] }];
      expect(details.reasons[0]).toMatch(new RegExp(`the webhook still does not see runtime copy ${name} after 36[01]s, longer than timeouts.runtimeLag \\(5m\\)`));
      expect(old.calls.filter((c) => c.startsWith('delete'))).toEqual(['delete trainingruntimes copy-uid']);

      // Younger than that: the retryable ErrUnreachable, the copy kept.
      const young = scripted(denials(), [copyCreated(60_000)]);
      expect(await rejection(env().run(young.activities.createTrainJob, { trainJob, copy }))).toMatchObject({ type: 'ErrUnreachable' });
      expect(young.calls.filter((c) => c.startsWith('delete'))).toEqual([]);
    });

    it('no hidden create: after an unanswered create of this attempt, the TrainJob found by name and token is adopted, else ErrOutcomeUnknown naming it; never ErrUnreachable', async () => {
      const landed = { ...trainJob, metadata: { ...trainJob.metadata, uid: 'landed' } };
      const adopted = scripted(denials(), [landed]);
      expect(await env(2).run(adopted.activities.createTrainJob, { trainJob, copy })).toEqual({ name, uid: 'landed', adopted: true });
      expect(adopted.calls.at(-1)).toBe('get trainjobs');

      const missing = scripted(denials(), [GONE]);
      const error = await rejection(env(2).run(missing.activities.createTrainJob, { trainJob, copy }));
      expect(error).toMatchObject({ type: 'ErrOutcomeUnknown', nonRetryable: true });
      const [details] = (error as ApplicationFailure).details as [{ reasons: string[]; step: number }];
      expect(details.step).toBe(6);
      expect(details.reasons[1]).toContain('a create of this attempt went unanswered');
      // Even with a copy far older than runtimeLag: the TrainJob may exist, so nothing is removed.
      expect(missing.calls.filter((c) => c.startsWith('delete'))).toEqual([]);
    });
  });

  it("step 8: a read-back that finds the TrainJob gone (404) is ErrRejected decided by no answer of the cluster's (not definite: the preflight does not count it); a 403 is definite", async () => {
    const { trainJob } = rendered();
    const input = { namespace: trainJob.metadata.namespace!, name: trainJob.metadata.name! };
    const gone = scripted([], [GONE]);
    const goneError = (await rejection(run(gone.activities.readBack, input))) as ApplicationFailure;
    expect(goneError).toMatchObject({ type: 'ErrRejected' });
    expect(goneError.details?.[1]).toEqual({ definite: false });
    const denied = scripted([], [status(403, 'Forbidden')]);
    const deniedError = (await rejection(run(denied.activities.readBack, input))) as ApplicationFailure;
    expect(deniedError).toMatchObject({ type: 'ErrRejected' });
    expect(deniedError.details).toHaveLength(1);
  });

  it("step 6's pauses between creates after a webhook's lag double from 300 ms up to 2 s, within CallBound less a request's bound", () => {
    expect([1, 2, 3, 4, 5, 10].map(runtimeLagPauseMs)).toEqual([300, 600, 1200, 2000, 2000, 2000]);
    // The worker's defaults: CallBound 30 s, requests of 10 s; the outage test's: 20 s and 2 s.
    expect(runtimeLagBudgetMs(30_000, 10_000)).toBe(20_000);
    expect(runtimeLagBudgetMs(20_000, 2_000)).toBe(18_000);
    expect(runtimeLagBudgetMs(4_000, 4_000)).toBe(2_000);
  });

  it('step 5: a copy with the same spec and no owner is reused; one with an owner is ErrRejected', async () => {
    const { runtimeCopy } = rendered();
    const left = { ...runtimeCopy, metadata: { ...runtimeCopy.metadata, uid: 'left' } };
    const reuse = scripted([CONFLICT], [left]);
    expect(await run(reuse.activities.createRuntimeCopy, { copy: runtimeCopy })).toMatchObject({ uid: 'left', reused: true });

    const owned = {
      ...left,
      metadata: { ...left.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'TrainJob', name: 'other', uid: 'o' }] },
    };
    const refuse = scripted([CONFLICT], [owned]);
    const error = await rejection(run(refuse.activities.createRuntimeCopy, { copy: runtimeCopy }));
    expect(error).toMatchObject({ type: 'ErrRejected', nonRetryable: true });
    expect((error as ApplicationFailure).details).toEqual([
      { reasons: [expect.stringMatching(/already exists and is owned by TrainJob\/other$/)], step: 5 },
    ]);
  });
});

describe("step 5 of a retried Start whose attempt's earlier run succeeded", () => {
  /** The copy and TrainJob as the earlier run left them: the copy owned by the suspended TrainJob. */
  function earlierRun() {
    const { runtimeCopy, trainJob } = rendered();
    const name = trainJob.metadata.name!;
    const copy = {
      ...runtimeCopy,
      metadata: { ...runtimeCopy.metadata, uid: 'copy-uid', ownerReferences: [{ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', name, uid: 'job-uid' }] },
    };
    const job = { ...trainJob, metadata: { ...trainJob.metadata, uid: 'job-uid' } };
    return { runtimeCopy, trainJob, copy, job };
  }

  it("reuses the copy owned by the attempt's own unopened TrainJob (one more read: its owner)", async () => {
    const { runtimeCopy, trainJob, copy, job } = earlierRun();
    const api = scripted([CONFLICT], [copy, job]);
    expect(await run(api.activities.createRuntimeCopy, { copy: runtimeCopy, trainJob, mode: 'plain' })).toEqual({
      name: runtimeCopy.metadata!.name,
      uid: 'copy-uid',
      reused: true,
      // The run knows it adopted an earlier run's TrainJob: its compensation leaves it.
      earlierTrainJobUid: 'job-uid',
    });
    expect(api.calls).toEqual(['create trainingruntimes', 'get trainingruntimes', 'get trainjobs']);
  });

  it('refuses when that TrainJob was opened or held since, with the seed reason, why it was not adopted, and its ref', async () => {
    const { runtimeCopy, trainJob, copy, job } = earlierRun();
    const opened = { ...job, spec: { ...job.spec, suspend: false } };
    const held = { ...job, metadata: { ...job.metadata, annotations: { ...job.metadata.annotations, [OperationAnnotations.held]: 'true' } } };
    for (const [found, what] of [[opened, 'opened'], [held, 'held']] as const) {
      const api = scripted([CONFLICT], [copy, found]);
      const error = await rejection(run(api.activities.createRuntimeCopy, { copy: runtimeCopy, trainJob, mode: 'plain' }));
      expect(error).toMatchObject({ type: 'ErrRejected', nonRetryable: true });
      expect((error as ApplicationFailure).details).toEqual([
        {
          reasons: [expect.stringMatching(/already exists and is owned by TrainJob\//), expect.stringContaining(`the caller has ${what} it`)],
          step: 5,
          ref: { namespace: job.metadata.namespace, name: job.metadata.name, uid: 'job-uid' },
        },
      ]);
      // Nothing written: the create that met the copy, then two reads.
      expect(api.calls).toEqual(['create trainingruntimes', 'get trainingruntimes', 'get trainjobs']);
    }
  });

  it('without the TrainJob (a Start recorded before this input existed) the seed refusal stands', async () => {
    const { runtimeCopy, copy } = earlierRun();
    const api = scripted([CONFLICT], [copy]);
    expect(await rejection(run(api.activities.createRuntimeCopy, { copy: runtimeCopy }))).toMatchObject({ type: 'ErrRejected' });
    expect(api.calls).toEqual(['create trainingruntimes', 'get trainingruntimes']);
  });
});

describe('one error convention for every activity', () => {
  it('a refused request at prepareStart arrives as the non-retryable ErrInvalid failure', async () => {
    const { activities } = scripted([], []);
    const error = await rejection(activities.prepareStart({}));
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: 'ErrInvalid', nonRetryable: true });
  });

  it('an unanswered call arrives as the retryable KubeUnanswered failure, untouched', async () => {
    const { activities } = scripted([], [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })]);
    const error = await rejection(run(activities.readRuntime, { namespace: 'ml-jobs', runtime: { kind: 'TrainingRuntime', name: 'torch' } }));
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: UNANSWERED, nonRetryable: false });
    expect((error as Error).message).toMatch(/^get TrainingRuntime ml-jobs\/torch: no answer from the Kubernetes API \(ECONNREFUSED: connect ECONNREFUSED\)$/);
  });
});
