// Stop whose delete goes unanswered, through the fault proxy on the real stack (docs/contract.md §9,
// §9a): the delete lands and its answer is dropped (once, or every time until CallBound), or every
// delete is reset until CallBound. The Stop answers the state it reached (Absent) or ErrUnreachable,
// never a state it did not see; a retried Stop answers Absent; and nothing of the job is left.
import { beforeAll, describe, expect, it } from 'vitest';
import { Trainer } from '../../../src/model/constants.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { TrainJobRef, TrainJobState } from '../../../src/model/operations.js';
import { startRequest } from '../../support/requests.js';
import type { DispatchHarness } from '../support/dispatch.js';
import type { FaultProxy, FaultRule } from '../support/fault-proxy.js';
import { proxiedSuite } from '../support/proxied-suite.js';
import { until } from '../support/operations.js';
import { readTrainJob, refOf } from './support.js';

/** `h`: CallBound 5 s, the Stop under a fault; `patient`: 60 s, the Start before and the retried Stop after. */
const suite = proxiedSuite('stop-unanswered', { short: '5s' });
let proxy: FaultProxy;
let h: DispatchHarness;
let patient: DispatchHarness;
beforeAll(() => {
  ({ proxy, h, patient } = suite);
});

const trainJobPath = (ref: TrainJobRef) =>
  `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ref.namespace}/${Trainer.trainJobPlural}/${ref.name}`;

/** The runtime copy of the TrainJob's name, or undefined when it is gone. */
async function readCopy(ref: TrainJobRef): Promise<unknown> {
  try {
    return await h.kube.custom.getNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      plural: Trainer.trainingRuntimePlural,
      namespace: ref.namespace,
      name: ref.name,
    });
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

/** The Stop's answer, or its typed failure. */
const stopped = (on: DispatchHarness, ref: TrainJobRef): Promise<TrainJobState | DispatchError> =>
  on.client.stop(ref).catch((error: unknown) => {
    if (error instanceof DispatchError) return error;
    throw error;
  });

/** The TrainJob and its runtime copy are gone (the garbage collector takes the copy). */
async function expectNothingLeft(ref: TrainJobRef): Promise<void> {
  await until(`TrainJob ${ref.name} and its runtime copy to be gone`, 60_000, async () =>
    (await readTrainJob(h.kube, ref)) === undefined && (await readCopy(ref)) === undefined ? true : undefined,
  );
}

/** The DELETEs of this TrainJob the proxy saw: what the API server answered, and whether the worker got it. */
const deletesOf = (ref: TrainJobRef) =>
  proxy.requests.filter((r) => r.method === 'DELETE' && r.path === trainJobPath(ref));

describe('Stop, the delete unanswered (docs/contract.md §9a)', () => {
  it.each([
    { times: 1, what: 'once' },
    { times: Infinity, what: 'every time until CallBound' },
  ])('the delete lands and its answer is dropped $what: Absent or ErrUnreachable; a retried Stop answers Absent; nothing left', async ({ times }) => {
    const ref = refOf(await patient.client.startTrainJob(startRequest()));
    const rule: FaultRule = { method: 'DELETE', path: trainJobPath(ref), times, action: 'drop-response' };
    const fault = proxy.inject(rule);
    const answer = await stopped(h, ref);
    proxy.clear();

    expect(fault.hits).toBeGreaterThanOrEqual(1);
    // The first delete reached the API server and was carried out: only its answer was lost.
    const first = deletesOf(ref)[0]!;
    expect(first.fault).toBe('drop-response');
    expect([200, 202]).toContain(first.upstreamStatus);
    expect(first.status).toBeUndefined();
    if (answer instanceof DispatchError) {
      expect(answer).toMatchObject({ type: 'ErrUnreachable', step: 0, ref });
    } else {
      expect(answer).toMatchObject({ ref, phase: 'Absent' });
    }
    expect(await patient.client.stop(ref)).toMatchObject({ ref, phase: 'Absent' });
    await expectNothingLeft(ref);
    console.log(`[stop-unanswered] drop ${times}: ${answer instanceof DispatchError ? answer.type : answer.phase} after ${deletesOf(ref).length} deletes`);
  });

  it('every delete is reset until CallBound: ErrUnreachable, the TrainJob untouched; a retried Stop answers Absent; nothing left', async () => {
    const ref = refOf(await patient.client.startTrainJob(startRequest()));
    proxy.inject({ method: 'DELETE', path: trainJobPath(ref), times: Infinity, action: 'reset' });
    const answer = await stopped(h, ref);
    proxy.clear();

    expect(deletesOf(ref).length).toBeGreaterThanOrEqual(1);
    expect(deletesOf(ref).every((r) => r.fault === 'reset' && r.upstreamStatus === undefined)).toBe(true);
    expect(answer).toBeInstanceOf(DispatchError);
    expect(answer).toMatchObject({ type: 'ErrUnreachable', step: 0, ref });
    // No delete reached the API server: the TrainJob is as Start left it.
    const still = await readTrainJob(h.kube, ref);
    expect(still?.metadata.uid).toBe(ref.uid);
    expect(still?.metadata.deletionTimestamp).toBeUndefined();

    expect(await patient.client.stop(ref)).toMatchObject({ ref, phase: 'Absent' });
    await expectNothingLeft(ref);
  });
});
