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
});
