// The Temporal contract table (src/contract/workflows.ts): every workflow type has its entry under
// the name the workflows register, the ids are the documented ones (docs/contract.md §1, §9), and
// the client parses what a workflow answers with the entry's schema instead of casting it.
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTCOME_PHASES, PHASES } from '../../../src/model/constants.js';
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

// docs/contract.md §10: a field a newer worker adds to a result is ignored by this client; a field
// it knows is still checked; a request with an unknown field is still refused, naming it.
describe('results are read tolerantly, requests strictly (version skew)', () => {
  const text = fc.string({ maxLength: 12 });
  const ref = fc.record({
    namespace: fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?$/),
    name: fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/),
    uid: fc.uuid(),
  });
  const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
  const defined = <T extends object>(value: T) => JSON.parse(JSON.stringify(value)) as T;
  type Read = (c: DispatchKubeflowClient) => Promise<unknown>;
  /** Each of Open, Hold, Release and Stop: what they read, when all four read the same. */
  const everyOperation: Read = async (c) => {
    const states = await Promise.all((['open', 'hold', 'release', 'stop'] as const).map((op) => c[op](REF)));
    for (const state of states) expect(state).toEqual(states[0]);
    return states[0];
  };
  const results: Record<string, { value: fc.Arbitrary<object>; read: Read; known: string }> = {
    StartResult: {
      value: fc.record({ ref: text, uid: text, namespace: text, name: text, runtimeCopy: text, mode: fc.constantFrom('plain', 'kueue'), weakened: optional(text) }),
      read: (c: DispatchKubeflowClient) => c.startTrainJob(exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' })),
      known: 'mode',
    },
    Capabilities: {
      value: fc.record({ runtime: text, procsPerNode: fc.boolean(), weakened: optional(text) }),
      read: (c: DispatchKubeflowClient) => c.capabilities({}),
      known: 'procsPerNode',
    },
    BackendGates: {
      value: fc.record({ reach: fc.boolean(), write: fc.boolean(), start: fc.boolean(), reasons: fc.array(text), checkedAt: text, startUnknown: optional(fc.boolean()), writeUnknown: optional(fc.boolean()) }),
      read: (c: DispatchKubeflowClient) => c.probe(),
      known: 'reach',
    },
    TrainJobState: {
      value: fc.record({ ref, phase: fc.constantFrom(...PHASES), held: fc.boolean(), reasons: fc.array(text) }),
      read: everyOperation,
      known: 'held',
    },
    Outcome: {
      value: fc.record({ ref, phase: fc.constantFrom(...OUTCOME_PHASES), reason: text, message: text, exitCode: optional(fc.integer({ min: 0, max: 255 })), finishedAt: fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString()) }),
      read: (c: DispatchKubeflowClient) => c.watch(REF),
      known: 'phase',
    },
  };
  /** Fields a newer worker might add: names this release does not use, any JSON value. */
  const added = fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }).map((k) => `new_${k}`), fc.jsonValue(), { minKeys: 1, maxKeys: 4 });

  it.each(Object.entries(results))('%s: any field added, at the top or inside its ref, is ignored and the rest read as it is', async (_, { value, read }) => {
    await fc.assert(
      fc.asyncProperty(value, added, added, async (result, top, inRef) => {
        const known = defined(result as Record<string, unknown>);
        const sent = { ...known, ...top, ...(typeof known.ref === 'object' ? { ref: { ...(known.ref as object), ...inRef } } : {}) };
        const { client } = answering(sent);
        expect(await read(client)).toEqual(known);
      }),
      { numRuns: 60 },
    );
  });

  it.each(Object.entries(results))('%s: a known field of the wrong type is still refused', async (_, { value, read, known }) => {
    const [sample] = fc.sample(value, 1);
    const { client } = answering({ ...defined(sample!), [known]: 'Paused', new_field: 1 });
    await expect(read(client)).rejects.toThrow(new RegExp(known));
  });

  it('requests stay strict: an unknown field of a StartRequest, a TrainJobRef or a capabilities request is refused, named', () => {
    const request = exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' });
    /** The keys the input schema refuses as unknown. */
    const refusal = (schema: { safeParse(v: unknown): { error?: { issues: { code: string; keys?: string[] }[] } } } | undefined, value: unknown) =>
      schema?.safeParse(value).error?.issues.find((i) => i.code === 'unrecognized_keys')?.keys;
    expect(refusal(Workflows.start.input, { ...request, priority: 1 })).toEqual(['priority']);
    expect(refusal(Workflows.start.input, { ...request, spec: { ...request.spec, gpus: 1 } })).toEqual(['gpus']);
    for (const op of OPERATIONS) expect(refusal(OperationWorkflows[op].input, { ...REF, cluster: 'x' })).toEqual(['cluster']);
    expect(refusal(Workflows.capabilities.input, { spec: {}, extra: true })).toEqual(['extra']);
  });
});
