// Today's TypeScript client against a worker of a newer release (docs/contract.md §10): the worker
// adds a field to every result it writes, at the top and inside the ref (AddedResultFieldCodec), and
// the typed client, which does not know the field, still reads every result: Start, Capabilities,
// the probe, Hold, Release, Open, Stop and Watch, each equal to what this release's schema says and
// nothing more. The same results read raw (no schema) show the field was there.
import { Client } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import { OperationWorkflows } from '../../../src/contract/workflows.js';
import { OutcomeSchema, TrainJobStateSchema, type TrainJobRef } from '../../../src/model/operations.js';
import { BackendGatesSchema, CapabilitiesSchema, StartResultSchema } from '../../../src/model/results.js';
import { ADDED_FIELD, ADDED_VALUE, AddedResultFieldCodec } from '../../support/added-result-field.js';
import { startRequest } from '../../support/requests.js';
import { dispatchSuite } from '../support/suite.js';

const suite = dispatchSuite('skew-newer', {
  dataConverter: { payloadCodecs: [new AddedResultFieldCodec()] },
});
/** Today's typed client, as a caller of this release builds it: the default data converter. */
let today: DispatchKubeflowClient;
let raw: Client;
let ref: TrainJobRef;

beforeAll(() => {
  raw = suite.h.env.client;
  today = new DispatchKubeflowClient(raw, {
    namespace: suite.ns.name,
    taskQueue: suite.h.config.temporal.taskQueue,
  });
});

/** The last run's result of a workflow, read without any schema. */
const rawResult = (workflowId: string) =>
  raw.workflow.getHandle(workflowId).result() as Promise<Record<string, unknown>>;
/** What a newer worker sent: the field at the top and, when there is a ref, inside it. */
function expectAdded(result: Record<string, unknown>) {
  expect(result[ADDED_FIELD]).toEqual(ADDED_VALUE);
  if (typeof result.ref === 'object')
    expect((result.ref as Record<string, unknown>)[ADDED_FIELD]).toEqual(ADDED_VALUE);
}

describe("today's TypeScript client against a worker that adds a result field", { timeout: 240_000 }, () => {
  it('reads the Start, Capabilities and probe results: exactly the fields it knows', async () => {
    const request = startRequest();
    const handle = await today.submit(request);
    const started = await today.startTrainJob(request);
    // Strict parsing passes only without the added field.
    expect(StartResultSchema.parse(started)).toEqual(started);
    expect(started.mode).toBe('plain');
    ref = { namespace: started.namespace, name: started.name, uid: started.uid };
    expectAdded(await rawResult(handle.workflowId));

    const capabilities = await today.capabilities(request.spec);
    expect(CapabilitiesSchema.parse(capabilities)).toEqual(capabilities);
    const gates = await today.probe();
    expect(BackendGatesSchema.parse(gates)).toEqual(gates);
    expect(gates).toMatchObject({ reach: true, write: true });
  });

  it('reads Hold, Release, Open, Stop and the Watch after it, each with the ref it knows', async () => {
    const answers = {
      hold: await today.hold(ref),
      release: await today.release(ref),
      open: await today.open(ref),
      stop: await today.stop(ref),
    };
    expect(answers.hold).toMatchObject({ ref, phase: 'Held', held: true });
    expect(answers.release).toMatchObject({ ref, phase: 'Gated', held: false });
    expect(answers.open).toMatchObject({ ref, phase: 'Running' });
    expect(answers.stop.ref).toEqual(ref);
    for (const [op, state] of Object.entries(answers)) {
      expect(TrainJobStateSchema.parse(state), op).toEqual(state);
      expectAdded(await rawResult(OperationWorkflows[op as keyof typeof answers].id(ref)));
    }
    const outcome = await today.watch(ref);
    expect(OutcomeSchema.parse(outcome)).toEqual(outcome);
    expect(outcome).toMatchObject({ ref, phase: 'Absent' });
    expectAdded(await rawResult(OperationWorkflows.watch.id(ref)));
  });
});
