// Find after a Start that ended ErrOutcomeUnknown, through the fault proxy on the real stack
// (docs/contract.md §7): InFlight while the Start runs and for CallBound after it ended (the
// TrainJob may yet appear, or be there unseen), then what the API server holds: Present with the
// TrainJob's ref and attempt token when the create had landed, Absent when none ever reached it.
import type { WorkflowHandle } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { typed } from '../../../src/client/dispatch-client.js';
import { trainJobName } from '../../../src/core/start/names.js';
import { Annotations, Trainer } from '../../../src/model/constants.js';
import { parseGoDuration, toMillis } from '../../../src/model/duration.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { TrainJob } from '../../../src/model/kube.js';
import type { StartRequest } from '../../../src/model/request.js';
import { startRequest } from '../../support/requests.js';
import type { DispatchHarness } from '../support/dispatch.js';
import type { FaultAction, FaultProxy, ProxiedRequest } from '../support/fault-proxy.js';
import type { TestNamespace } from '../support/kube.js';
import { proxiedSuite } from '../support/proxied-suite.js';

/** `h`: CallBound 10 s: the Start's creates fail for that long, and Find's InFlight lasts that long after. */
const suite = proxiedSuite('find-in-flight', { short: '10s' });
let ns: TestNamespace;
let proxy: FaultProxy;
let h: DispatchHarness;
beforeAll(() => {
  ({ ns, proxy, h } = suite);
});

const callMs = () => toMillis(parseGoDuration(h.config.timeouts.call)!);
const nameOf = (request: StartRequest) => trainJobName(request.job, request.submission);
const find = (request: StartRequest) => h.client.find(request.job, request.submission, h.kube, callMs());

/**
 * Starts `request` with every TrainJob create of its name getting `action` until CallBound, checks
 * Find answers InFlight while it runs, and returns its handle and failure (ErrOutcomeUnknown at step 6).
 */
async function outcomeUnknown(
  request: StartRequest,
  action: FaultAction,
): Promise<{ handle: WorkflowHandle; error: DispatchError; creates: ProxiedRequest[] }> {
  const path = `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns.name}/${Trainer.trainJobPlural}`;
  const from = proxy.requests.length;
  proxy.inject({ method: 'POST', path, times: Infinity, action });
  const handle = await h.client.submit(request);
  // Visibility is eventually consistent: the running Start shows within a few seconds, well inside CallBound.
  await expect.poll(() => find(request), { timeout: callMs(), interval: 250 }).toEqual({ state: 'InFlight', workflowId: handle.workflowId });
  const error = await handle.result().then(
    () => undefined,
    (e: unknown) => typed(e),
  );
  proxy.clear();
  if (!(error instanceof DispatchError)) throw new Error(`expected ErrOutcomeUnknown, got ${String(error)}`);
  expect(error).toMatchObject({ type: 'ErrOutcomeUnknown', step: 6, ref: { namespace: ns.name, name: nameOf(request) } });
  const creates = proxy.requests.slice(from).filter((r) => r.method === 'POST' && r.path === path);
  return { handle, error, creates };
}

/** Waits until CallBound has passed since the Start closed, by the server's close time. */
async function pastCallBound(handle: WorkflowHandle): Promise<void> {
  const closed = (await handle.describe()).closeTime;
  if (!closed) throw new Error(`${handle.workflowId} has no close time`);
  await sleep(Math.max(0, closed.getTime() + callMs() + 1_000 - Date.now()));
}

describe('Find after a Start ended ErrOutcomeUnknown (docs/contract.md §7)', () => {
  it('the create landed but every answer was lost: InFlight for CallBound, then Present with the ref and attempt token', async () => {
    const request = startRequest();
    const { handle, creates } = await outcomeUnknown(request, 'drop-response');
    expect(creates.map((r) => r.upstreamStatus)).toContain(201);
    expect(creates.every((r) => r.status === undefined)).toBe(true);
    expect(await find(request)).toEqual({ state: 'InFlight', workflowId: handle.workflowId });

    await pastCallBound(handle);
    const trainJob = (await h.kube.custom.getNamespacedCustomObject({
      group: Trainer.group,
      version: Trainer.version,
      plural: Trainer.trainJobPlural,
      namespace: ns.name,
      name: nameOf(request),
    })) as TrainJob;
    const token = trainJob.metadata.annotations?.[Annotations.attemptToken];
    expect(token).toBeTruthy();
    expect(await find(request)).toEqual({
      state: 'Present',
      ref: { namespace: ns.name, name: nameOf(request), uid: trainJob.metadata.uid },
      attemptToken: token,
    });
  });

  it('no create reached the API server (every one reset): InFlight for CallBound, then Absent', async () => {
    const request = startRequest();
    const { handle, creates } = await outcomeUnknown(request, 'reset');
    expect(creates.length).toBeGreaterThanOrEqual(1);
    expect(creates.every((r) => r.upstreamStatus === undefined)).toBe(true);
    expect(await find(request)).toEqual({ state: 'InFlight', workflowId: handle.workflowId });

    await pastCallBound(handle);
    expect(await find(request)).toEqual({ state: 'Absent' });
  });
});
