// Every failure step of Start against the real API server, with the fault proxy making the answers
// go missing (docs/start.md steps 5-8, docs/contract.md §6-7): what the caller gets, and what is left behind.
import { WorkflowFailedError } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { DispatchError } from '../../../src/model/errors.js';
import { fromFailure } from '../../../src/model/error-failures.js';
import { startWorkflowId } from '../../../src/contract/names.js';
import { Trainer } from '../../../src/model/constants.js';
import type { StartRequest } from '../../../src/model/request.js';
import { startRequest } from '../../support/requests.js';
import type { DispatchHarness } from '../support/dispatch.js';
import type { FaultProxy } from '../support/fault-proxy.js';
import type { TestNamespace } from '../support/kube.js';
import { proxiedSuite } from '../support/proxied-suite.js';

/** `h`: CallBound 3 s, for the paths where the bound must run out; `patient`: 60 s, for the paths that must succeed, the definite refusals, and the one a cancel must end. */
const suite = proxiedSuite('faults', { short: '3s', workload: '3s' });
let ns: TestNamespace;
let proxy: FaultProxy;
let h: DispatchHarness;
let patient: DispatchHarness;
beforeAll(() => {
  ({ ns, proxy, h, patient } = suite);
});

const base = () => `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns.name}`;
const nameOf = (request: StartRequest) => `dj-${request.job.toLowerCase()}-s${request.submission}`;

/** The Start's failure, on the short CallBound unless `on` says otherwise (a definite refusal needs no bound to run out). */
async function failureOf(request: StartRequest, on: DispatchHarness = h): Promise<DispatchError> {
  const error = await on.client.startTrainJob(request).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DispatchError);
  return error as DispatchError;
}

/** Names of the objects of `plural` in the namespace that carry this request's name, read directly. */
async function existing(plural: string, request: StartRequest): Promise<string[]> {
  const list = (await h.kube.custom.listNamespacedCustomObject({
    group: Trainer.group,
    version: Trainer.version,
    namespace: ns.name,
    plural,
  })) as { items: { metadata: { name: string; deletionTimestamp?: string } }[] };
  return list.items.filter((o) => o.metadata.name === nameOf(request) && !o.metadata.deletionTimestamp).map((o) => o.metadata.name);
}

/** Waits (up to 30 s: the garbage collector's pace) until no object of the request's name is left. */
async function expectNothingLeft(request: StartRequest): Promise<void> {
  await expect
    .poll(async () => [...(await existing('trainjobs', request)), ...(await existing('trainingruntimes', request))], {
      timeout: 30_000,
      interval: 500,
    })
    .toEqual([]);
}

describe('failure steps of Start, through the fault proxy', () => {
  it('step 5 unanswered: ErrUnreachable, and nothing is created', async () => {
    const request = startRequest();
    proxy.inject({ method: 'POST', path: `${base()}/trainingruntimes`, times: Infinity, action: 'status-500' });
    const error = await failureOf(request);
    expect(error.type).toBe('ErrUnreachable');
    expect(error.step).toBe(5);
    expect(error.reasons.join()).toContain('runtime copy');
    expect(error.ref).toBeUndefined();
    proxy.clear();
    expect(await existing('trainingruntimes', request)).toEqual([]);
    expect(await existing('trainjobs', request)).toEqual([]);
  });

  it('step 6 unanswered but landed: the create is retried, the 409 with our token adopted, and the Start succeeds', async () => {
    const request = startRequest();
    const drop = proxy.inject({ method: 'POST', path: `${base()}/trainjobs`, times: 1, action: 'drop-response' });
    const result = await patient.client.startTrainJob(request);
    expect(drop.hits).toBe(1);
    const posts = proxy.requests.filter((r) => r.method === 'POST' && r.path === `${base()}/trainjobs`);
    expect(posts.map((r) => r.upstreamStatus)).toEqual([201, 409]);
    expect(await existing('trainjobs', request)).toEqual([result.name]);
  });

  it('step 6 unanswered past CallBound: ErrOutcomeUnknown with the ref; a retried Start of the attempt ends with one TrainJob', async () => {
    const request = startRequest();
    proxy.inject({ method: 'POST', path: `${base()}/trainjobs`, times: Infinity, action: 'reset' });
    const error = await failureOf(request);
    expect(error.type).toBe('ErrOutcomeUnknown');
    expect(error.step).toBe(6);
    expect(error.ref).toMatchObject({ namespace: ns.name, name: nameOf(request) });
    // The copy stays for the retried Start to reuse: the TrainJob might exist.
    expect(await existing('trainingruntimes', request)).toEqual([nameOf(request)]);

    proxy.clear();
    const result = await patient.client.startTrainJob(request);
    expect(await existing('trainjobs', request)).toEqual([result.name]);
    expect(await existing('trainingruntimes', request)).toEqual([result.name]);
  });

  it('a different attempt is refused while the old TrainJob exists, and the old one is untouched', async () => {
    const first = startRequest();
    const started = await patient.client.startTrainJob(first);
    const error = await failureOf({ ...first, attempt: 2 }, patient);
    // Seed 000 step 5: the copy of that name is owned by the first attempt's TrainJob, so it is not
    // reused, and the refusal comes before any create.
    expect(error.type).toBe('ErrRejected');
    expect(error.step).toBe(5);
    expect(error.reasons[0]).toBe(`runtime copy ${ns.name}/${started.name} already exists and is owned by TrainJob/${started.name}`);
    const still = (await h.kube.custom.getNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      namespace: ns.name,
      plural: 'trainjobs',
      name: started.name,
    })) as { metadata: { uid: string } };
    expect(still.metadata.uid).toBe(started.uid);
    expect(await existing('trainingruntimes', first)).toEqual([started.name]);
  });

  it("a Start retried after its earlier run succeeded (the answer lost) gets the same TrainJob; once opened, it is refused and the job untouched", async () => {
    const request = startRequest();
    const first = await patient.client.startTrainJob(request);
    // The run closed: the same attempt again starts a new run of the id (docs/contract.md §1), whose
    // step 5 finds the copy owned by the first run's TrainJob and step 6 that TrainJob itself.
    const again = await patient.client.startTrainJob(request);
    expect(again).toEqual(first);
    const runs = await h.client.client.workflow.list({ query: `WorkflowId = '${startWorkflowId(ns.name, first.name, request.attempt)}'` });
    let completed = 0;
    for await (const run of runs) completed += run.status.name === 'COMPLETED' ? 1 : 0;
    expect(completed).toBe(2);

    const ref = { namespace: ns.name, name: first.name, uid: first.uid };
    await patient.client.open(ref);
    const error = await failureOf(request, patient);
    expect(error.type).toBe('ErrRejected');
    expect(error.step).toBe(5);
    expect(error.reasons).toEqual([
      `runtime copy ${ns.name}/${first.name} already exists and is owned by TrainJob/${first.name}`,
      expect.stringMatching(/is this attempt's, but was opened or changed since it was started.*spec\.suspend: wrote true, read false/),
    ]);
    const still = (await h.kube.custom.getNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      namespace: ns.name,
      plural: 'trainjobs',
      name: first.name,
    })) as { metadata: { uid: string; deletionTimestamp?: string }; spec: { suspend?: boolean } };
    expect(still.metadata).toMatchObject({ uid: first.uid });
    expect(still.metadata.deletionTimestamp).toBeUndefined();
    expect(still.spec.suspend).toBe(false);
    expect(await existing('trainingruntimes', request)).toEqual([first.name]);
  });

  it('step 7 failing: the TrainJob is stopped, the copy deleted, ErrRejected with the ref', async () => {
    const request = startRequest();
    proxy.inject({ method: 'PATCH', path: `${base()}/trainingruntimes/${nameOf(request)}`, times: Infinity, action: 'status-500' });
    const error = await failureOf(request);
    expect(error.type).toBe('ErrRejected');
    expect(error.step).toBe(7);
    expect(error.ref?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.reasons.join()).toContain('owner reference');
    proxy.clear();
    await expectNothingLeft(request);
  });

  it('step 8 failing: the TrainJob is stopped and the copy collected, ErrRejected with the ref', async () => {
    const request = startRequest();
    proxy.inject({ method: 'GET', path: `${base()}/trainjobs/${nameOf(request)}`, times: Infinity, action: 'hang' });
    const handle = await h.client.submit(request);
    // The compensation reads the TrainJob before it deletes it (docs/contract.md §7): reads answer again once it began.
    await expect.poll(() => h.calls.of(handle.workflowId).some((c) => c.type === 'stopTrainJob'), { timeout: 30_000 }).toBe(true);
    proxy.clear();
    const error = fromFailure(await handle.result().catch((e: unknown) => e))!;
    expect(error.type).toBe('ErrRejected');
    expect(error.step).toBe(8);
    expect(error.ref?.name).toBe(nameOf(request));
    proxy.clear();
    await expectNothingLeft(request);
  });

  it('step 7 failing and the stop failing too: ErrOutcomeUnknown naming both, with the ref', async () => {
    const request = startRequest();
    proxy.inject({ method: 'PATCH', path: `${base()}/trainingruntimes/${nameOf(request)}`, times: Infinity, action: 'status-500' });
    proxy.inject({ method: 'DELETE', path: new RegExp(`/${nameOf(request)}$`), times: Infinity, action: 'status-500' });
    const error = await failureOf(request);
    expect(error.type).toBe('ErrOutcomeUnknown');
    expect(error.step).toBe(7);
    expect(error.ref?.name).toBe(nameOf(request));
    expect(error.reasons.some((r) => r.includes('owner reference'))).toBe(true);
    expect(error.reasons.some((r) => r.startsWith('the stop failed too'))).toBe(true);
    proxy.clear();
    // The TrainJob is still there: the outcome is what the caller was told, unknown, not silently lost.
    expect(await existing('trainjobs', request)).toEqual([nameOf(request)]);
  });

  it('a cancelled Start rolls back: nothing is left behind', async () => {
    // The long CallBound: the cancel, not the bound, ends the hung read-back on a loaded machine
    // (with 3 s, seeing step 8 and cancelling could take longer than the bound).
    const request = startRequest();
    proxy.inject({ method: 'GET', path: `${base()}/trainjobs/${nameOf(request)}`, times: Infinity, action: 'hang' });
    const handle = await patient.client.submit(request);
    await expect.poll(async () => (await handle.query<{ step: number }>('progress')).step, { timeout: 50_000 }).toBe(8);
    await handle.cancel();
    // The compensation reads the TrainJob before it deletes it (docs/contract.md §7): reads answer again once it began.
    await expect.poll(() => patient.calls.of(handle.workflowId).some((c) => c.type === 'stopTrainJob'), { timeout: 30_000 }).toBe(true);
    proxy.clear();
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(fromFailure(error)).toBeUndefined();
    expect(String((error as WorkflowFailedError).cause)).toMatch(/cancel/i);
    proxy.clear();
    await expectNothingLeft(request);
  });
});
