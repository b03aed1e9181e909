// The Temporal contract table (src/contract/workflows.ts): every workflow type has its entry under
// the name the workflows register, the ids are the documented ones (docs/contract.md §1, §9), and
// the client parses what a workflow answers with the entry's schema instead of casting it.
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import * as registered from '../../../src/workflows/index.js';
import { OperationWorkflows, Workflows } from '../../../src/contract/workflows.js';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import { OPERATIONS, WorkflowTypes } from '../../../src/contract/names.js';
import { config, exampleRequest } from '../../golden/cases.js';

const REF = { namespace: 'ml-jobs', name: 'dj-01jq-s12', uid: '9f0c7d2e-1b7a-4c56-8d1e-0a2b3c4d5e6f' };
const STATE = { ref: REF, phase: 'Running', held: false, reasons: [] };

/** A Temporal client whose workflows all answer `result`; records what was started. */
function answering(result: unknown) {
  const started: { type: string; options: Record<string, unknown> }[] = [];
  const handle = { result: () => Promise.resolve(result) } as unknown as WorkflowHandleWithFirstExecutionRunId;
  const workflow = {
    start: (type: string, options: Record<string, unknown>) => (started.push({ type, options }), Promise.resolve(handle)),
    execute: (type: string, options: Record<string, unknown>) => (started.push({ type, options }), Promise.resolve(result)),
  };
  return { client: new DispatchKubeflowClient({ workflow } as unknown as Client, { namespace: config().namespace }), started };
}

describe('the Temporal contract table', () => {
  it('has one entry per workflow type, under the name the workflow code exports', () => {
    expect(Object.values(Workflows).map((w) => w.type)).toEqual(Object.values(WorkflowTypes));
    for (const type of Object.values(WorkflowTypes)) expect(typeof (registered as Record<string, unknown>)[type]).toBe('function');
  });

  it('builds the documented ids', () => {
    const subject = { namespace: 'ml-jobs', name: 'dj-x-s1', request: { job: 'x', generation: 1, submission: 1, attempt: 3 } };
    expect(Workflows.start.id(subject)).toBe('start/ml-jobs/dj-x-s1/a3');
    expect(Workflows.probe.id({ namespace: 'ml-jobs' })).toBe('probe/ml-jobs');
    expect(Workflows.capabilities.id({ namespace: 'ml-jobs', unique: 'u' })).toBe('capabilities/ml-jobs/u');
    for (const op of OPERATIONS) expect(OperationWorkflows[op].id(REF)).toBe(`${op}/ml-jobs/dj-01jq-s12/${REF.uid}`);
  });
});

describe('the client parses results with the table, not a cast', () => {
  it('an operation answering a TrainJobState is returned as it is, started as the table says', async () => {
    const { client, started } = answering(STATE);
    expect(await client.hold(REF)).toEqual(STATE);
    expect(started[0]).toMatchObject({ type: 'HoldTrainJob', options: { workflowId: Workflows.hold.id(REF), staticSummary: Workflows.hold.summary(REF) } });
  });

  it.each([
    ['an operation whose answer lacks a field', (c: DispatchKubeflowClient) => c.hold(REF), { ref: REF, phase: 'Running' }],
    ['a Watch answering a TrainJobState, not an Outcome', (c: DispatchKubeflowClient) => c.watch(REF), STATE],
    ['a Start answering nothing', (c: DispatchKubeflowClient) => c.startTrainJob(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' })), undefined],
    ['a probe answering gates without reasons', (c: DispatchKubeflowClient) => c.probe(), { reach: true, write: true, start: true, checkedAt: 'now' }],
    ['a capabilities query answering a string', (c: DispatchKubeflowClient) => c.capabilities({}), 'yes'],
  ])('%s is refused', async (_what, call, answer) => {
    const { client } = answering(answer);
    await expect(call(client)).rejects.toThrow();
  });
});
