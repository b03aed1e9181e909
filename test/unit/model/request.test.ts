import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatPath, issuesToReasons } from '../../../src/model/issues.js';
import {
  CapabilitiesRequestSchema,
  IMAGE_MAX_LENGTH,
  ImageExtensionSchema,
  JobIdSchema,
  RuntimeRefExtensionSchema,
  StartRequestSchema,
  hasLoneSurrogate,
  hasWorkDir,
} from '../../../src/model/request.js';
import { CRDS, loadCrdSchema } from '../../support/crd-schema.js';

/** Reasons for a failed parse, with or without zod's reportInput. */
function reasons(schema: z.ZodType, input: unknown, reportInput = true): string[] {
  const parsed = schema.safeParse(input, { reportInput });
  return parsed.success ? [] : issuesToReasons(parsed.error.issues);
}

describe('formatPath: a field as a caller writes it', () => {
  it.each([
    [['spec', 'env', 'FOO'], 'spec.env.FOO'],
    [['spec', 'command', 2], 'spec.command[2]'],
    [['spec', 'extensions', 'dispatch/Image', 'ref'], 'spec.extensions.dispatch/Image.ref'],
    [[0, 'name'], '[0].name'],
    [['spec', 'env', ''], 'spec.env[""]'],
    [['spec', 'env', 'a.b'], 'spec.env["a.b"]'],
    [['spec', 'env', 'a b'], 'spec.env["a b"]'],
    [['spec', 'env', 'x\u0000'], 'spec.env["x\\u0000"]'],
    [['spec', 'env', 'q"'], 'spec.env["q\\""]'],
    [[], ''],
  ] as [PropertyKey[], string][])('%j is %s', (path, text) => {
    expect(formatPath(path)).toBe(text);
  });
});

describe('issuesToReasons', () => {
  const schema = z.strictObject({ a: z.string(), n: z.int({ error: 'n must be an integer' }), list: z.array(z.number()), map: z.record(z.string(), z.string()) });

  it('a missing field is "is required", with or without reportInput', () => {
    expect(reasons(schema.pick({ a: true }), {})).toEqual(['a: is required']);
    expect(reasons(schema.pick({ a: true }), {}, false)).toEqual(['a: is required']);
    expect(reasons(schema.pick({ n: true }), {})).toEqual(['n: is required']);
  });

  it('a wrong type says what it must be and what it was, with or without reportInput', () => {
    const input = { a: 1, n: 1, list: {}, map: [] };
    const expected = ['a: must be a string, not a number', 'list: must be an array, not an object', 'map: must be an object, not an array'];
    expect(reasons(schema, input)).toEqual(expected);
    expect(reasons(schema, input, false)).toEqual(expected);
    expect(reasons(schema.pick({ a: true }), { a: null })).toEqual(['a: must be a string, not null']);
    expect(reasons(schema.pick({ a: true }), { a: null }, false)).toEqual(['a: must be a string, not null']);
  });

  it('a custom type message is kept for a present value (the words of docs/start.md\'s request table)', () => {
    expect(reasons(schema.pick({ n: true }), { n: 1.5 })).toEqual(['n: n must be an integer']);
    expect(reasons(schema.pick({ n: true }), { n: '1' })).toEqual(['n: n must be an integer']);
  });

  it('unknown keys are each named; a problem with the whole value has no path', () => {
    expect(reasons(schema.pick({ a: true }), { a: 'x', b: 1, c: 2 })).toEqual(['b: unknown field', 'c: unknown field']);
    expect(reasons(schema, 'x')).toEqual(['must be an object, not a string']);
    expect(reasons(schema, [])).toEqual(['must be an object, not an array']);
  });

  it('a prefix places the issues under a path', () => {
    const parsed = z.strictObject({ ref: z.string().min(1, { error: 'empty Ref' }) }).safeParse({ ref: '' });
    expect(issuesToReasons(parsed.error!.issues, ['spec', 'extensions', 'dispatch/Image'])).toEqual(['spec.extensions.dispatch/Image.ref: empty Ref']);
  });

  it('an enum lists its values', () => {
    expect(reasons(z.strictObject({ kind: z.enum(['A', 'B']) }), { kind: 'C' })).toEqual(['kind: must be one of "A", "B"']);
  });
});

describe('docs/contract.md §2: JobID is a ULID in canonical form', () => {
  it.each(['01JD0Q3J0Y6Q7J7Z4W2X5V8K9M', '00000000000000000000000000', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'])('%s is valid', (id) => {
    expect(JobIdSchema.safeParse(id).success).toBe(true);
  });

  it.each([
    ['8ZZZZZZZZZZZZZZZZZZZZZZZZZ', 'first character above 7'],
    ['01JD0Q3J0Y6Q7J7Z4W2X5V8K9m', 'lower case'],
    ['01JD0Q3J0Y6Q7J7Z4W2X5V8K9I', 'I is not Crockford'],
    ['01JD0Q3J0Y6Q7J7Z4W2X5V8K9L', 'L is not Crockford'],
    ['01JD0Q3J0Y6Q7J7Z4W2X5V8K9O', 'O is not Crockford'],
    ['01JD0Q3J0Y6Q7J7Z4W2X5V8K9U', 'U is not Crockford'],
    ['01JD0Q3J0Y6Q7J7Z4W2X5V8K9', '25 characters'],
    [' 01JD0Q3J0Y6Q7J7Z4W2X5V8K9M', 'leading space'],
  ])('%s is not a valid JobID (%s)', (id) => {
    expect(reasons(JobIdSchema, id)).toEqual(['not a valid JobID']);
  });
});

describe('docs/start.md, Extensions table: the extension schemas', () => {
  it('dispatch/Image: an empty Ref is refused, a non-empty one accepted', () => {
    expect(reasons(ImageExtensionSchema, { ref: '' })).toEqual(['ref: empty Ref']);
    expect(ImageExtensionSchema.parse({ ref: 'busybox' })).toEqual({ ref: 'busybox' });
  });

  it('dispatch/Image: the ref limit is the TrainJob CRD\'s maxLength of spec.trainer.image', () => {
    const spec = loadCrdSchema(CRDS.trainJob).properties!.spec as { properties: { trainer: { properties: { image: { maxLength: number } } } } };
    expect(spec.properties.trainer.properties.image.maxLength).toBe(IMAGE_MAX_LENGTH);
  });

  it('kubeflow/RuntimeRef: kind is TrainingRuntime or ClusterTrainingRuntime; name a Kubernetes object name', () => {
    expect(RuntimeRefExtensionSchema.parse({ kind: 'TrainingRuntime', name: 'torch-2.4.cuda' })).toEqual({ kind: 'TrainingRuntime', name: 'torch-2.4.cuda' });
    expect(reasons(RuntimeRefExtensionSchema, { kind: 'TrainingRuntime', name: '' })).toEqual(['name: empty name']);
    expect(reasons(RuntimeRefExtensionSchema, { kind: 'TrainingRuntime', name: '-x' })).toEqual(['name: not a valid runtime name (DNS-1123 subdomain)']);
    expect(reasons(RuntimeRefExtensionSchema, { kind: 'TrainingRuntime', name: 'a..b' })).toEqual(['name: not a valid runtime name (DNS-1123 subdomain)']);
    expect(reasons(RuntimeRefExtensionSchema, { name: 'x' })).toEqual(['kind: is required']);
  });
});

describe('StartRequestSchema', () => {
  it('spec.extensions is a map of anything: the extension table is validate\'s (src/core/start/validate.ts)', () => {
    const parsed = StartRequestSchema.safeParse({
      job: '01JD0Q3J0Y6Q7J7Z4W2X5V8K9M',
      generation: 0,
      submission: 1,
      attempt: 0,
      spec: { command: ['x'], nodes: 1, extensions: { 'any/Thing': 1 } },
    });
    expect(parsed.success).toBe(true);
  });
});

describe('CapabilitiesRequestSchema: only what Capabilities reads is checked', () => {
  it('other spec fields pass through unchecked; a top-level unknown key is refused', () => {
    expect(CapabilitiesRequestSchema.safeParse({ spec: { nodes: 'many', command: 7 } }).success).toBe(true);
    expect(reasons(CapabilitiesRequestSchema, { spec: {}, extra: 1 })).toEqual(['extra: unknown field']);
    expect(reasons(CapabilitiesRequestSchema, { spec: { procsPerNode: -1 } })).toEqual(['spec.procsPerNode: negative process count']);
  });
});

describe('hasWorkDir: Go\'s WorkDir string, empty is unset', () => {
  it.each([
    ['/workspace', true],
    ['rel', true],
    ['', false],
    [null, false],
    [undefined, false],
    [5, false],
  ])('%j is %s', (workDir, set) => {
    expect(hasWorkDir(workDir)).toBe(set);
  });
});

describe('hasLoneSurrogate: a UTF-16 surrogate that is not half of a pair', () => {
  it.each([
    ['', false],
    ['plain', false],
    ['\u{1F600} paired', false],
    ['\uD83D\uDE00', false],
    ['\uD800', true],
    ['\uDC00', true],
    ['a\uDBFFb', true],
    ['\uDE00\uD83D', true],
    ['\uD83D\uDE00\uD83D', true],
  ])('%j: %s', (value, lone) => {
    expect(hasLoneSurrogate(value)).toBe(lone);
  });
});
