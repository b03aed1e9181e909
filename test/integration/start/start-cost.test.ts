// What a Start costs its worker and Temporal, on the real stack, from its history (patch
// start-one-upsert-per-task; test/support/start-cost.ts): one search attribute upsert per workflow
// task, two in all for a plain Start, and the step a local call is stuck at visible while it backs
// off (a runtime copy create answered 500 once, through the fault proxy).
import { beforeAll, describe, expect, it } from 'vitest';
import { Trainer } from '../../../src/model/constants.js';
import { DispatchStep } from '../../../src/contract/search-attributes.js';
import { startWorkflowId } from '../../../src/contract/names.js';
import type { StartRequest } from '../../../src/model/request.js';
import { runCost, upsertedValues, valuesAtTimers } from '../../support/start-cost.js';
import { startRequest } from '../../support/requests.js';
import type { DispatchHarness } from '../support/dispatch.js';
import type { FaultProxy } from '../support/fault-proxy.js';
import type { TestNamespace } from '../support/kube.js';
import { proxiedSuite } from '../support/proxied-suite.js';

const suite = proxiedSuite('start-cost', { short: '3s' });
let ns: TestNamespace;
let proxy: FaultProxy;
let patient: DispatchHarness;
beforeAll(() => {
  ({ ns, proxy, patient } = suite);
});

async function historyOf(request: StartRequest, name: string) {
  const handle = patient.client.client.workflow.getHandle(startWorkflowId(ns.name, name, request.attempt));
  return (await handle.fetchHistory()).events ?? [];
}

describe('the cost of a Start, from its history', () => {
  it("a plain Start: two workflow tasks, one upsert of the workflow's each, three local activities", async () => {
    const request = startRequest();
    const result = await patient.client.startTrainJob(request);
    const events = await historyOf(request, result.name);
    // The other two upserts are the SDK's TemporalChangeVersion, one with each patch's marker
    // (start-one-upsert-per-task, start-folded-calls); prepareStart, steps 2 and 5, steps 7 and 8:
    // three local activities. Two workflow tasks, or a third when a local activity runs past 80 %
    // of the workflow task timeout on a loaded machine (the SDK then completes the task and asks
    // for another: seen once here).
    const cost = runCost(events);
    expect(cost).toMatchObject({ upserts: 4, workflowUpserts: 2, upsertsPerTaskMax: 1, localActivities: 3, timers: 0 });
    expect(cost.workflowTasks).toBeGreaterThanOrEqual(2);
    expect(upsertedValues(events, DispatchStep.name)).toEqual(['6 create TrainJob', `started ${result.ref}`]);
  });

  it('a runtime copy create answered 500 once: step 5 is what DispatchStep says while its retry waits', async () => {
    const request = startRequest();
    const fault = proxy.inject({ method: 'POST', path: `/apis/${Trainer.group}/${Trainer.version}/namespaces/${ns.name}/trainingruntimes`, times: 1, action: 'status-500' });
    const result = await patient.client.startTrainJob(request);
    expect(fault.hits).toBe(1);
    const events = await historyOf(request, result.name);
    expect(valuesAtTimers(events, DispatchStep.name)).toEqual(['5 create runtime copy']);
    // Steps 2 and 5's fold stops at the 500; the timer ends the first workflow task; the create's
    // retry and step 6 are the second, steps 7 and 8 the third.
    const cost = runCost(events);
    expect(cost).toMatchObject({ workflowUpserts: 3, upsertsPerTaskMax: 1, timers: 1 });
    expect(cost.workflowTasks).toBeGreaterThanOrEqual(3);
    expect(upsertedValues(events, DispatchStep.name)).toEqual(['5 create runtime copy', '6 create TrainJob', `started ${result.ref}`]);
  });
});
