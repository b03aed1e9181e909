import fc from 'fast-check';
import { assertReaching } from '../reached.js';
import { describe, expect, it } from 'vitest';
import { renderStart } from '../../../../src/core/start/render.js';
import { validate } from '../../../../src/core/start/validate.js';
import { DispatchError } from '../../../../src/model/errors.js';
import { config, loadInputRuntime } from '../../../golden/cases.js';

type Json = Record<string, unknown>;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const noNul = fc.string().filter((s) => !s.includes('\u0000'));

const jobId = fc
  .tuple(fc.constantFrom(...'01234567'), fc.array(fc.constantFrom(...CROCKFORD), { minLength: 25, maxLength: 25 }))
  .map(([head, tail]) => head + tail.join(''));

const envKey = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/).filter((k) => !k.startsWith('DISPATCH_') && k !== '__proto__');
const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?$/);
const runtimeName = fc.array(dnsLabel, { minLength: 1, maxLength: 3 }).map((labels) => labels.join('.'));

const timeLimit = fc.oneof(
  fc.nat(100_000).map((s) => `${s}s`),
  fc.tuple(fc.nat(99), fc.nat(59), fc.nat(999)).map(([h, m, ms]) => `${h}h${m}m${ms}ms`),
  fc.constant('1.5s'),
);
const checkpoint = fc.oneof(
  noNul.map((s) => `/${s}`),
  fc.tuple(dnsLabel, noNul).map(([bucket, key]) => `s3://${bucket}/${key}`),
);

/** An optional field: absent, null, or a value (a Go client sends null, a TS one omits it). */
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });

const validRequest: fc.Arbitrary<Json> = fc.record(
  {
    job: jobId,
    generation: fc.integer({ min: 0, max: 18_000_000 }),
    submission: fc.integer({ min: 1, max: 999_999 }),
    attempt: fc.nat(),
    spec: fc.record(
      {
        name: optional(fc.string()),
        command: fc.array(noNul, { minLength: 1, maxLength: 8 }),
        env: optional(fc.dictionary(envKey, noNul, { maxKeys: 8 })),
        workDir: optional(noNul),
        nodes: fc.integer({ min: 1, max: 1024 }),
        gpusPerNode: optional(fc.nat(16)),
        procsPerNode: optional(fc.nat(16)),
        timeLimit: optional(timeLimit),
        checkpoint: optional(checkpoint),
        recovery: optional(fc.record({ policy: fc.string() }, { requiredKeys: [] })),
        extensions: fc.record(
          {
            'dispatch/Image': fc.record({ ref: fc.string({ minLength: 1 }) }),
            'kubeflow/RuntimeRef': fc.record({ kind: fc.constantFrom('TrainingRuntime', 'ClusterTrainingRuntime'), name: runtimeName }),
            'dispatch/SharedCheckpoint': fc.constant({}),
          },
          { requiredKeys: ['dispatch/Image', 'kubeflow/RuntimeRef'] },
        ),
      },
      { requiredKeys: ['command', 'nodes', 'extensions'] },
    ),
    native: optional(fc.record({ requeue: fc.boolean(), restart: fc.boolean() }, { requiredKeys: [] })),
  },
  { requiredKeys: ['job', 'generation', 'submission', 'attempt', 'spec'] },
);

// Generated values are shared with fast-check's shrinker: a property that changes one works on a copy.

/** Validates; returns the refusal, or undefined when accepted. Anything else thrown fails the test. */
function outcome(input: unknown): DispatchError | undefined {
  try {
    validate(input);
    return undefined;
  } catch (error) {
    if (!(error instanceof DispatchError)) throw error;
    return error;
  }
}

/** A refusal is well-formed; a request that passed has nothing to check (`refused` counts the others). */
function expectWellFormedRefusal(error: DispatchError | undefined, refused: () => void): void {
  if (error === undefined) return;
  refused();
  expect(['ErrInvalid', 'ErrUnsupported']).toContain(error.type);
  expect(error.step).toBe(4);
  expect(error.reasons.length).toBeGreaterThan(0);
  for (const reason of error.reasons) expect(reason).toMatch(/\S/);
}

/** Every object inside a request where an unknown key must be refused, with its path. */
const strictPlaces: readonly { path: string; at: (request: Json) => Json | undefined }[] = [
  { path: '', at: (r) => r },
  { path: 'spec', at: (r) => r.spec as Json },
  { path: 'native', at: (r) => (r.native ?? undefined) as Json | undefined },
  { path: 'spec.recovery', at: (r) => ((r.spec as Json).recovery ?? undefined) as Json | undefined },
  { path: 'spec.extensions.dispatch/Image', at: (r) => ((r.spec as Json).extensions as Json)['dispatch/Image'] as Json },
  { path: 'spec.extensions.kubeflow/RuntimeRef', at: (r) => ((r.spec as Json).extensions as Json)['kubeflow/RuntimeRef'] as Json },
  { path: 'spec.extensions.dispatch/SharedCheckpoint', at: (r) => ((r.spec as Json).extensions as Json)['dispatch/SharedCheckpoint'] as Json | undefined },
];

const KNOWN_FIELDS = new Set(['job', 'generation', 'submission', 'attempt', 'spec', 'native', 'name', 'command', 'env', 'workDir', 'nodes', 'gpusPerNode', 'procsPerNode', 'timeLimit', 'checkpoint', 'recovery', 'extensions', 'requeue', 'restart', 'policy', 'ref', 'kind']);
const unknownKey = fc.stringMatching(/^[a-z][A-Za-z0-9]{0,10}$/).filter((k) => !KNOWN_FIELDS.has(k));

const INTEGER_FIELDS: readonly { path: string; set: (request: Json, value: number) => void }[] = [
  { path: 'generation', set: (r, v) => (r.generation = v) },
  { path: 'submission', set: (r, v) => (r.submission = v) },
  { path: 'attempt', set: (r, v) => (r.attempt = v) },
  { path: 'spec.nodes', set: (r, v) => ((r.spec as Json).nodes = v) },
  { path: 'spec.gpusPerNode', set: (r, v) => ((r.spec as Json).gpusPerNode = v) },
  { path: 'spec.procsPerNode', set: (r, v) => ((r.spec as Json).procsPerNode = v) },
];
const nonInteger = fc.oneof(
  fc.double({ noNaN: false }).filter((d) => !Number.isInteger(d)),
  fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1.5, -0.5),
);

/** Replaces the value at a path (each step picks an entry, modulo their count) with another value. */
function replaceAt(value: unknown, steps: readonly number[], replacement: unknown): unknown {
  const [step, ...rest] = steps;
  if (step === undefined || typeof value !== 'object' || value === null) return replacement;
  if (Array.isArray(value)) {
    if (value.length === 0) return replacement;
    const copy = [...value];
    copy[step % copy.length] = replaceAt(copy[step % copy.length], rest, replacement);
    return copy;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[step % keys.length]!;
  return { ...value, [key]: replaceAt((value as Json)[key], rest, replacement) };
}

describe('validate: properties', () => {
  // How many generated cases must reach the assertions of each property that filters (../reached.ts):
  // 50, the rule of the operations' plans (a kind of input making a tenth of them is then missed with
  // a chance under 0.6%). fc.pre draws again for each case it skips, so those reach all their runs;
  // the two "passes or is refused" properties check only the refusals.
  const MIN = 50;
  it('any JSON value either passes or is refused with ErrInvalid/ErrUnsupported, step 4, and reasons; never anything else', () => {
    assertReaching(MIN, (refused) => fc.property(fc.jsonValue(), (input) => expectWellFormedRefusal(outcome(input), refused)), { numRuns: 500 });
  });

  it('a valid request with any part replaced by any JSON value passes or is refused well-formed', () => {
    assertReaching(MIN, (refused) =>
      fc.property(validRequest, fc.array(fc.nat(), { maxLength: 5 }), fc.jsonValue(), (request, steps, replacement) =>
        expectWellFormedRefusal(outcome(replaceAt(request, steps, replacement)), refused),
      ),
      { numRuns: 500 },
    );
  });

  it('docs/contract.md §2: a valid generated request passes, and the parsed request is what was sent', () => {
    fc.assert(
      fc.property(validRequest, (request) => {
        const valid = validate(request);
        expect(valid.request).toEqual(request);
        const extensions = (request.spec as Json).extensions as Json;
        expect(valid.image).toBe((extensions['dispatch/Image'] as Json).ref);
        expect(valid.runtime).toEqual(extensions['kubeflow/RuntimeRef']);
      }),
      { numRuns: 300 },
    );
  });

  it('docs/contract.md §2: an unknown key anywhere is ErrInvalid naming its path', () => {
    assertReaching(MIN, (reached) =>
      fc.property(validRequest, fc.constantFrom(...strictPlaces), unknownKey, fc.jsonValue(), (generated, place, key, value) => {
        const request = structuredClone(generated);
        const target = place.at(request);
        fc.pre(target !== undefined);
        reached();
        target![key] = value;
        const error = outcome(request);
        expect(error?.type).toBe('ErrInvalid');
        expect(error?.reasons).toEqual([`${place.path === '' ? '' : `${place.path}.`}${key}: unknown field`]);
      }),
      { numRuns: 300 },
    );
  });

  it('docs/contract.md §2: non-integers are invalid in every integer field', () => {
    fc.assert(
      fc.property(validRequest, fc.constantFrom(...INTEGER_FIELDS), nonInteger, (generated, field, value) => {
        const request = structuredClone(generated);
        field.set(request, value);
        const error = outcome(request);
        expect(error?.type).toBe('ErrInvalid');
        expect(error?.reasons).toHaveLength(1);
        expect(error?.reasons[0]).toMatch(new RegExp(`^${field.path.replace('.', '\\.')}: `));
      }),
      { numRuns: 300 },
    );
  });

  it('any extension key besides the three is named as unsupported, and alone makes ErrUnsupported', () => {
    assertReaching(MIN, (reached) =>
      fc.property(validRequest, fc.string({ minLength: 1 }), fc.jsonValue(), (generated, key, value) => {
        const request = structuredClone(generated);
        fc.pre(!['dispatch/Image', 'kubeflow/RuntimeRef', 'dispatch/SharedCheckpoint'].includes(key));
        reached();
        Object.defineProperty((request.spec as Json).extensions, key, { value, enumerable: true, configurable: true, writable: true });
        const error = outcome(request);
        expect(error?.type).toBe('ErrUnsupported');
        expect(error?.reasons).toEqual([`extension ${key} is not supported on Kubeflow`]);
      }),
      { numRuns: 300 },
    );
  });

  it('a lone UTF-16 surrogate anywhere in a command item is ErrInvalid naming that item', () => {
    const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(validRequest, fc.nat(), noNul, lone, noNul, (generated, at, before, surrogate, after) => {
        const request = structuredClone(generated);
        const command = (request.spec as Json).command as string[];
        const index = at % command.length;
        // Kept lone: the neighbours are ASCII, so no high surrogate meets a low one.
        command[index] = `${before}${surrogate}${after}`;
        const error = outcome(request);
        expect(error?.type).toBe('ErrInvalid');
        expect(error?.reasons).toEqual([`spec.command[${index}]: holds a lone UTF-16 surrogate, which Kubernetes cannot store`]);
      }),
      { numRuns: 300 },
    );
  });

  it('"" is unset for every optional string field: accepted, and the same TrainJob as the field absent', () => {
    const runtime = loadInputRuntime('dispatch-kind');
    const FIELDS = ['name', 'workDir', 'timeLimit', 'checkpoint'] as const;
    fc.assert(
      fc.property(validRequest, fc.constantFrom(...FIELDS), (generated, field) => {
        const empty = structuredClone(generated);
        const absent = structuredClone(generated);
        (empty.spec as Json)[field] = '';
        delete (absent.spec as Json)[field];
        const render = (request: Json) => renderStart(validate(request), runtime, config());
        expect(render(empty)).toEqual(render(absent));
      }),
      { numRuns: 200 },
    );
  });
});
