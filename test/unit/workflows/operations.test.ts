// The operations after Start (docs/contract.md §9), fast: the real workflows on the time-skipping
// test server, their activities stubbed by a tiny API server (support/operation-stubs.ts). What
// each writes, how it re-reads when someone else wrote first, when it gives up, how a wait for
// Kueue's Workload ends. Watch has its own file (watch-woken.test.ts).
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { WorkflowTypes, type Operation } from '../../../src/contract/names.js';
import type { FailureDetails } from '../../../src/model/errors.js';
import { DispatchPhase } from '../../../src/contract/search-attributes.js';
import { MAX_STALE_WRITES } from '../../../src/workflows/change-trainjob.js';
import { condition, OTHER_UID, REF, trainJob, workload, GATE } from '../core/operation-fixtures.js';
import { configOf, KUEUE, workflowBundle } from './support/start-stubs.js';
import { operationStubs, type FakeServer, type OperationBehaviour, type OperationStubs } from './support/operation-stubs.js';
import { timeSkippingSuite } from './support/time-skipping-suite.js';

const ts = timeSkippingSuite();

interface Ran {
  result?: unknown;
  error?: unknown;
  handle: WorkflowHandle;
}

let runs = 0;
async function run(op: Operation, stubs: OperationStubs, input: unknown = REF): Promise<Ran> {
  const taskQueue = `operations-${++runs}`;
  const worker = await Worker.create({
    connection: ts.env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: stubs.activities,
  });
  const handle = await ts.env.client.workflow.start(WorkflowTypes[op], {
    args: [input],
    taskQueue,
    workflowId: `${op}/${REF.namespace}/${REF.name}/${REF.uid}/${runs}`,
  });
  const ended = await worker.runUntil(handle.result().then((result: unknown) => ({ result }), (error: unknown) => ({ error })));
  return { ...ended, handle };
}

function failureOf(ran: Ran): { type: string | undefined } & FailureDetails {
  expect(ran.error, `it answered ${JSON.stringify(ran.result)}`).toBeInstanceOf(WorkflowFailedError);
  const failure = (ran.error as WorkflowFailedError).cause as ApplicationFailure;
  return { type: failure.type ?? undefined, ...(failure.details?.[0] as FailureDetails) };
}

const PLAIN_CONFIG = configOf();
const KUEUE_CONFIG = configOf(KUEUE);
const gated = (): FakeServer => ({ trainJob: trainJob({ suspend: true }) });
const stubsFor = (server: FakeServer, behave: OperationBehaviour = {}, config = PLAIN_CONFIG) => operationStubs(config, server, behave);

describe('Open, Hold, Release', () => {
  it('Open (plain): one write, spec.suspend false and the opened annotation, testing UID and resourceVersion; answers Running', async () => {
    const stubs = stubsFor(gated());
    const ran = await run('open', stubs);
    expect(ran.result).toMatchObject({ ref: REF, phase: 'Running', held: false });
    expect(stubs.count('applyWrite')).toBe(1);
    const patch = (stubs.calls.find((c) => c.name === 'applyWrite')!.input as { write: { patch: unknown[] } }).write.patch;
    expect(patch).toEqual([
      { op: 'test', path: '/metadata/uid', value: REF.uid },
      { op: 'test', path: '/metadata/resourceVersion', value: '100' },
      { op: 'replace', path: '/spec/suspend', value: false },
      { op: 'add', path: '/metadata/annotations/dispatch.phpboyscout.uk~1opened', value: 'true' },
    ]);
    expect(stubs.server.trainJob?.spec.suspend).toBe(false);
  });

  it('a write that finds the object changed is planned again from a new read', async () => {
    const stubs = stubsFor(gated(), { racedWrites: 2 });
    const ran = await run('open', stubs);
    expect(ran.result).toMatchObject({ phase: 'Running' });
    expect(stubs.count('applyWrite')).toBe(3);
    expect(stubs.count('observeTrainJob')).toBe(4);
  });

  it(`gives up with ErrUnreachable (a lost race is retryable) after ${MAX_STALE_WRITES} stale writes in a row`, async () => {
    const stubs = stubsFor(gated(), { racedWrites: 1_000 });
    const failure = failureOf(await run('open', stubs));
    expect(failure).toMatchObject({ type: 'ErrUnreachable', step: 0, ref: REF });
    expect(failure.reasons[0]).toBe(`Open: the objects kept changing under ${MAX_STALE_WRITES} writes`);
    expect(stubs.count('applyWrite')).toBe(MAX_STALE_WRITES);
  });

  it('Hold (Kueue) before Kueue made the Workload: marks it held, waits timeouts.workload, answers Held and why', async () => {
    const config = configOf({ ...KUEUE, timeouts: { workload: '5s', call: '30s' } });
    const stubs = stubsFor({ trainJob: trainJob({ suspend: true, gatedBy: GATE }) }, {}, config);
    const ran = await run('hold', stubs);
    expect(ran.result).toMatchObject({ phase: 'Held', held: true });
    expect((ran.result as { reasons: string[] }).reasons.join('\n')).toContain('no Workload of this TrainJob yet');
    expect(stubs.count('applyWrite')).toBe(1);
    expect(stubs.count('observeTrainJob')).toBe(7);
  });

  it('Hold (Kueue), a run begun under patch hold-deactivates-workload-first: the Workload inactive, then the held annotation, in that order; again: nothing written', async () => {
    const server: FakeServer = { trainJob: trainJob({ suspend: false }), workload: workload({ active: true, check: 'Ready' }) };
    const stubs = stubsFor(server, {}, KUEUE_CONFIG);
    expect((await run('hold', stubs)).result).toMatchObject({ phase: 'Held', held: true });
    const kinds = stubs.calls.filter((c) => c.name === 'applyWrite').map((c) => (c.input as { write: { kind: string } }).write.kind);
    expect(kinds).toEqual(['Workload', 'TrainJob']);
    expect(server.workload?.spec?.active).toBe(false);
    const again = stubsFor(server, {}, KUEUE_CONFIG);
    expect((await run('hold', again)).result).toMatchObject({ phase: 'Held' });
    expect(again.count('applyWrite')).toBe(0);
  });

  it('Release of a job not held answers its state, writing nothing', async () => {
    const stubs = stubsFor(gated());
    expect((await run('release', stubs)).result).toMatchObject({ ref: REF, phase: 'Gated', held: false });
    expect(stubs.count('applyWrite')).toBe(0);
  });

  it('a refusal writes nothing and sets DispatchPhase to the phase read: Hold of a job that has Succeeded', async () => {
    const stubs = stubsFor({ trainJob: trainJob({ suspend: false, conditions: [condition('Complete')] }) });
    const ran = await run('hold', stubs);
    const failure = failureOf(ran);
    expect(failure.type).toBe('ErrRejected');
    expect(failure.reasons[0]).toContain('it has Succeeded');
    expect(stubs.count('applyWrite')).toBe(0);
    expect((await ran.handle.describe()).typedSearchAttributes.get(DispatchPhase)).toBe('Succeeded');
  });

  it.each(['open', 'hold', 'release'] as const)('%s whose write lands but whose answer is lost reads the fact true and answers the state', async (op) => {
    const start: Record<typeof op, FakeServer> = {
      open: gated(),
      hold: { trainJob: trainJob({ suspend: false }) },
      release: { trainJob: trainJob({ suspend: true, held: 'true', opened: 'true' }) },
    };
    const config = configOf({ timeouts: { call: '2s', workload: '60s' } });
    const stubs = stubsFor(start[op], { lostAnswers: 1 }, config);
    const ran = await run(op, stubs);
    expect(ran.result).toMatchObject({ ref: REF, phase: op === 'hold' ? 'Held' : 'Running' });
  });

  it.each(['open', 'hold', 'release', 'stop'] as const)('%s of a ref whose name now belongs to another UID answers Absent and touches nothing', async (op) => {
    const stubs = stubsFor({ trainJob: trainJob({ uid: OTHER_UID, suspend: false }) });
    const ran = await run(op, stubs);
    expect(ran.result).toMatchObject({ ref: REF, phase: 'Absent' });
    expect(stubs.count('applyWrite') + stubs.count('deleteTrainJob')).toBe(0);
    expect(stubs.server.trainJob?.metadata.uid).toBe(OTHER_UID);
    expect((await ran.handle.describe()).typedSearchAttributes.get(DispatchPhase)).toBe('Absent');
  });

  it('a read left unanswered until CallBound is ErrUnreachable', async () => {
    const config = configOf({ timeouts: { call: '1s', workload: '60s' } });
    const failure = failureOf(await run('open', stubsFor(gated(), { observeUnanswered: true }, config)));
    expect(failure).toMatchObject({ type: 'ErrUnreachable', ref: REF });
    expect(failure.reasons[0]).toMatch(/^waiting for the TrainJob to be read: /);
  });

  it('a malformed ref is ErrInvalid naming each field', async () => {
    const failure = failureOf(await run('open', stubsFor(gated()), { namespace: 'ML', name: 'x', uid: '', extra: 1 }));
    expect(failure.type).toBe('ErrInvalid');
    expect(failure.reasons).toEqual(expect.arrayContaining([expect.stringMatching(/^namespace: /), expect.stringMatching(/^uid: /), 'extra: unknown field']));
  });
});

describe('Stop', () => {
  it('deletes by UID and answers Absent; a TrainJob already gone is Absent with no delete', async () => {
    const stubs = stubsFor({ trainJob: trainJob({ suspend: false }) });
    expect((await run('stop', stubs)).result).toMatchObject({ ref: REF, phase: 'Absent' });
    expect(stubs.calls.filter((c) => c.name === 'deleteTrainJob').map((c) => c.input)).toEqual([{ ref: REF }]);
    const gone = stubsFor({});
    expect((await run('stop', gone)).result).toMatchObject({ phase: 'Absent' });
    expect(gone.count('deleteTrainJob')).toBe(0);
  });
});
