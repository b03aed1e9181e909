// What the TypeScript client starts, and how the worker's failures look on the wire, as JSON for the
// Go client's tests (go/testdata/contract.json; scripts/generate-go-testdata.ts writes it and
// test/unit/contract/go-testdata.test.ts holds it current). The values are recorded from the code
// itself: DispatchKubeflowClient on a Temporal client that records what it is asked to start, and
// toApplicationFailure through the SDK's failure converter.
import type { Client } from '@temporalio/client';
import { ApplicationFailure, DefaultFailureConverter, defaultPayloadConverter, type SearchAttributePair } from '@temporalio/common';
import proto from '@temporalio/proto';
import { DispatchKubeflowClient } from '../../src/client/dispatch-client.js';
import { attemptToken, trainJobName } from '../../src/core/start/names.js';
import type { KubeClients } from '../../src/kube/clients.js';
import { fromFailure, toApplicationFailure } from '../../src/model/error-failures.js';
import { DispatchError, type ErrorType } from '../../src/model/errors.js';
import type { TrainJobRef } from '../../src/model/operations.js';
import type { StartRequest } from '../../src/model/request.js';
import { OPERATIONS, WorkflowTypes } from '../../src/contract/names.js';
import { exampleRequest } from '../golden/cases.js';

const { Failure } = proto.temporal.api.failure.v1;

interface Started {
  type: string;
  options: Record<string, unknown>;
}

/** A Temporal client that records every workflow started, answers `result`, and lists nothing. */
function recording() {
  const started: Started[] = [];
  const queries: string[] = [];
  const handle = { result: () => Promise.resolve(undefined) };
  const workflow = {
    start: (type: string, options: Record<string, unknown>) => (started.push({ type, options }), Promise.resolve(handle)),
    execute: (type: string, options: Record<string, unknown>) => (started.push({ type, options }), Promise.resolve(undefined)),
    list: async function* ({ query }: { query: string }) {
      queries.push(query);
      yield* [];
    },
  };
  return { workflow, started, queries };
}

/** The options a Go client must set, as plain JSON (search attributes as name, type, value). */
function options({ type, options: o }: Started) {
  const pairs = (o.typedSearchAttributes ?? []) as SearchAttributePair[];
  return {
    type,
    taskQueue: o.taskQueue,
    workflowId: o.workflowId,
    workflowIdConflictPolicy: o.workflowIdConflictPolicy ?? null,
    workflowIdReusePolicy: o.workflowIdReusePolicy ?? null,
    staticSummary: o.staticSummary ?? null,
    searchAttributes: pairs.map(({ key, value }) => ({ name: key.name, type: key.type, value })),
    args: o.args,
  };
}

const NAMESPACES = ['ml-jobs', 'team-a'];
const IDENTITIES: Pick<StartRequest, 'job' | 'generation' | 'submission' | 'attempt'>[] = [
  { job: '01JD0Q3J0Y6Q7J7Z4W2X5V8K9M', generation: 3, submission: 12, attempt: 1 },
  { job: '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', generation: 18_000_000, submission: 999_999, attempt: 0 },
  { job: '00000000000000000000000000', generation: 0, submission: 1, attempt: 42 },
];
const REFS: TrainJobRef[] = [
  { namespace: 'ml-jobs', name: 'dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12', uid: '0b5b2c1e-1111-2222-3333-444455556666' },
  { namespace: 'team-a', name: 'a.b-c', uid: 'x' },
];
/** A seeded generator (a 32-bit LCG), so the recorded file is the same on every run. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = (below: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    // From the high bits: an LCG's low bits repeat with a short period.
    return Math.floor((state / 2 ** 32) * below);
  };
  const of = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[next(alphabet.length)]).join('');
  return { next, of };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
const random = seeded(26);
/** A DNS-1123 label of `length` characters, a dash inside. */
const label = (length: number) => `${random.of(LOWER, 1)}${random.of(LOWER, length - 3)}-${random.of(LOWER, 1)}`;
/** Random identities, each with a namespace of its own, and random refs: the edges as well as the middle. */
const RANDOM_STARTS = Array.from({ length: 16 }, () => ({
  namespace: label(3 + random.next(60)),
  identity: {
    job: `${random.of('01234567', 1)}${random.of(CROCKFORD, 25)}`,
    generation: random.next(18_000_001),
    submission: 1 + random.next(999_999),
    attempt: random.next(2) === 0 ? random.next(10) : random.next(2 ** 31),
  },
}));
const RANDOM_REFS: TrainJobRef[] = Array.from({ length: 8 }, () => ({
  namespace: label(3 + random.next(60)),
  name: `${label(3 + random.next(30))}.${label(3 + random.next(30))}`,
  uid: `${random.of('0123456789abcdef', 8)}-${random.of('0123456789abcdef', 4)}-4${random.of('0123456789abcdef', 3)}-8${random.of('0123456789abcdef', 3)}-${random.of('0123456789abcdef', 12)}`,
}));

const FIND_NOW = Date.parse('2026-12-02T03:04:05.678Z');
const CALL_BOUND_MS = 30_000;

/** Every (namespace, identity) the Start cases and the names are recorded for. */
const START_SUBJECTS = [...NAMESPACES.flatMap((namespace) => IDENTITIES.map((identity) => ({ namespace, identity }))), ...RANDOM_STARTS];

async function recordStarts() {
  const cases = [];
  for (const { namespace, identity } of START_SUBJECTS) {
    const { workflow, started } = recording();
    const client = new DispatchKubeflowClient({ workflow } as unknown as Client, { namespace });
    const request = { ...exampleRequest({ kind: 'ClusterTrainingRuntime', name: 'torch-distributed' }), ...identity };
    await client.submit(request);
    cases.push({ namespace, request: identity, name: trainJobName(identity.job, identity.submission), started: options(started[0]!) });
  }
  return cases;
}

async function recordOperations() {
  const cases = [];
  for (const ref of [...REFS, ...RANDOM_REFS]) {
    for (const op of OPERATIONS) {
      const { workflow, started } = recording();
      await new DispatchKubeflowClient({ workflow } as unknown as Client, { namespace: ref.namespace }).submitOperation(op, ref);
      cases.push({ op, ref, started: options(started[0]!) });
    }
  }
  return cases;
}

async function recordProbeAndCapabilities() {
  const probes = [];
  const capabilities = [];
  for (const namespace of NAMESPACES) {
    const { workflow, started } = recording();
    const client = new DispatchKubeflowClient({ workflow } as unknown as Client, { namespace, taskQueue: `queue-of-${namespace}` });
    await client.probe().catch(() => undefined);
    await client.capabilities({ procsPerNode: 4 }).catch(() => undefined);
    probes.push({ namespace, taskQueue: client.taskQueue, started: options(started[0]!) });
    const recorded = options(started[1]!);
    // The id ends in a random UUID: the Go test checks its prefix and form.
    capabilities.push({ namespace, taskQueue: client.taskQueue, started: { ...recorded, workflowId: (recorded.workflowId as string).replace(/[^/]+$/, '<uuid>') } });
  }
  return { probes, capabilities };
}

/** Find's two visibility queries at FIND_NOW (the TrainJob read answers 404: Absent). */
async function recordFind() {
  const { workflow, queries } = recording();
  const client = new DispatchKubeflowClient({ workflow } as unknown as Client, { namespace: 'ml-jobs' });
  const kube = { custom: { getNamespacedCustomObject: () => Promise.reject(Object.assign(new Error('not found'), { code: 404 })) } } as unknown as KubeClients;
  const now = Date.now;
  Date.now = () => FIND_NOW;
  try {
    const answer = await client.find(IDENTITIES[0]!.job, IDENTITIES[0]!.submission, kube, CALL_BOUND_MS);
    return { namespace: 'ml-jobs', job: IDENTITIES[0]!.job, submission: IDENTITIES[0]!.submission, now: new Date(FIND_NOW).toISOString(), callBoundMs: CALL_BOUND_MS, queries, answer };
  } finally {
    Date.now = now;
  }
}

const REF: TrainJobRef = REFS[0]!;
const FAILURES: { what: string; error: Error }[] = [
  { what: 'ErrInvalid at validation, every reason', error: toApplicationFailure(new DispatchError('ErrInvalid', ['spec.nodes: fewer than one node', 'spec.env.DISPATCH_X: reserved env key (keys beginning DISPATCH_ are dispatch\'s)'], 4)) },
  { what: 'ErrOutcomeUnknown at step 6, the ref without a UID', error: toApplicationFailure(new DispatchError('ErrOutcomeUnknown', ['creating TrainJob ml-jobs/dj-x-s1 got no answer within timeouts.call (30s)'], 6, { ...REF, uid: '' })) },
  { what: 'ErrRejected at step 8, with the ref', error: toApplicationFailure(new DispatchError('ErrRejected', ['spec.trainer.image: "a" was written, "b" was read back'], 8, REF)) },
  { what: 'ErrUnreachable without reasons', error: toApplicationFailure(new DispatchError('ErrUnreachable', [], 1)) },
  { what: 'ErrReadOnly of an operation (step 0)', error: toApplicationFailure(new DispatchError('ErrReadOnly', ['trainjobs "x" is forbidden: User "u" cannot patch'], 0, REF)) },
  { what: 'ErrUnsupported with unicode and quotes', error: toApplicationFailure(new DispatchError('ErrUnsupported', ['ClusterTrainingRuntime/torch: «backoffLimit» is 3; must be 0 <see docs/runtime-rules.md>'], 3)) },
  { what: 'a typed failure whose details are not FailureDetails', error: ApplicationFailure.create({ type: 'ErrRejected', message: 'rejected: by hand', nonRetryable: true, details: [{ reasons: 'one', step: 2 }] }) },
  { what: 'a typed failure whose ref has a fourth key', error: ApplicationFailure.create({ type: 'ErrRejected', message: 'rejected: odd ref', nonRetryable: true, details: [{ reasons: [], step: 7, ref: { ...REF, extra: 'x' } }] }) },
  { what: 'a typed failure without details', error: ApplicationFailure.create({ type: 'ErrUnreachable', message: 'unreachable: bare', nonRetryable: true }) },
  { what: 'a failure of another type', error: ApplicationFailure.create({ type: 'KubeUnanswered', message: 'GET ... got no answer', nonRetryable: false }) },
];

/** Each failure as the worker sends it (the Failure protobuf, base64) and as the TypeScript client reads it. */
function recordFailures() {
  const converter = new DefaultFailureConverter();
  return FAILURES.map(({ what, error }) => {
    // Without the stack trace, which names this machine's paths and the runner.
    const failure = { ...converter.errorToFailure(error, defaultPayloadConverter), stackTrace: '' };
    const typed = fromFailure(converter.failureToError(failure, defaultPayloadConverter));
    return {
      what,
      failure: Buffer.from(Failure.encode(failure).finish()).toString('base64'),
      typed: typed ? { type: typed.type satisfies ErrorType, message: typed.message, reasons: typed.reasons, step: typed.step, ref: typed.ref ?? null, retryableByCaller: typed.retryableByCaller } : null,
    };
  });
}

function recordNames() {
  return START_SUBJECTS.map(({ namespace, identity: { job, submission, attempt } }) => {
    const name = trainJobName(job, submission);
    return { namespace, job, submission, attempt, name, attemptToken: attemptToken(namespace, name, attempt) };
  });
}

/** The text of go/testdata/contract.json. */
export async function renderGoContract(): Promise<string> {
  const { probes, capabilities } = await recordProbeAndCapabilities();
  const contract = {
    comment: 'Written by scripts/generate-go-testdata.ts from the TypeScript client and model; do not edit.',
    workflowTypes: WorkflowTypes,
    names: recordNames(),
    starts: await recordStarts(),
    operations: await recordOperations(),
    probes,
    capabilities,
    find: await recordFind(),
    failures: recordFailures(),
  };
  return `${JSON.stringify(contract, null, 2)}\n`;
}
