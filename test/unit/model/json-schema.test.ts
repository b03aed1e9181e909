import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PUBLISHED_SCHEMAS, renderJsonSchema } from '../../../src/model/json-schema.js';

const docs = join(import.meta.dirname, '..', '..', '..', 'docs', 'schema');
const fixtures = join(import.meta.dirname, '..', '..', 'fixtures');
// docs/contract.md §2's example request and §5's example configuration, as the fixtures hold them.
const exampleRequest = JSON.parse(readFileSync(join(fixtures, 'requests', 'contract-example.json'), 'utf8')) as Record<string, unknown>;
const exampleConfig = parse(readFileSync(join(fixtures, 'config', 'contract-example.yaml'), 'utf8')) as Record<string, unknown>;

describe('published JSON Schemas (docs/schema)', () => {
  it.each(Object.keys(PUBLISHED_SCHEMAS))('%s is current with the zod model (run `npm run schema`)', (file) => {
    const onDisk = readFileSync(join(docs, file), 'utf8');
    expect(onDisk).toBe(renderJsonSchema(file as keyof typeof PUBLISHED_SCHEMAS));
  });

  it("accepts docs/contract.md §2's example request and refuses an unknown key", () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(renderJsonSchema('start-request.schema.json')));
    expect(validate(exampleRequest)).toBe(true);
    expect(validate({ ...exampleRequest, extra: 1 })).toBe(false);
    expect(validate({ ...exampleRequest, generation: 1.5 })).toBe(false);
  });

  it("accepts docs/contract.md §5's example config", () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(renderJsonSchema('config.schema.json')));
    const config = exampleConfig;
    expect(validate(config)).toBe(true);
    expect(validate({ ...config, mode: 'other' })).toBe(false);
  });

  it('TrainJobRef, TrainJobState and Outcome: the shapes the operations take and answer, and nothing else', () => {
    const ajv = new Ajv2020({ strict: false });
    const ref = { namespace: 'ml-jobs', name: 'dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12', uid: '0b5b2c1e-1111-2222-3333-444455556666' };
    const refSchema = ajv.compile(JSON.parse(renderJsonSchema('trainjob-ref.schema.json')));
    expect(refSchema(ref)).toBe(true);
    expect(refSchema({ ...ref, extra: 1 })).toBe(false);
    expect(refSchema({ ...ref, namespace: 'ML_Jobs' })).toBe(false);
    const state = ajv.compile(JSON.parse(renderJsonSchema('trainjob-state.schema.json')));
    expect(state({ ref, phase: 'Held', held: true, reasons: ['annotation held'] })).toBe(true);
    expect(state({ ref, phase: 'Paused', held: true, reasons: [] })).toBe(false);
    const outcome = ajv.compile(JSON.parse(renderJsonSchema('outcome.schema.json')));
    expect(outcome({ ref, phase: 'Failed', reason: 'BackoffLimitExceeded', message: '', exitCode: 125, finishedAt: '2026-12-01T04:17:12Z' })).toBe(true);
    expect(outcome({ ref, phase: 'Running', reason: '', message: '', finishedAt: '2026-12-01T04:17:12Z' })).toBe(false);
  });
});
