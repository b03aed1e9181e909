// The Helm chart's values, without helm: values.yaml passes values.schema.json, and the schema's
// `config` and `kueue` hold exactly the configuration's fields the chart does not set itself, so a
// field added to the configuration (docs/schema/config.schema.json) cannot be missing from the chart.
// test/integration/deploy/helm.test.ts renders the chart with the real helm.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO } from './manifests.js';

const CHART = join(REPO, 'deploy', 'helm', 'dispatch-kubeflow');

interface Schema {
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Schema;
const valuesSchema = readJson(join(CHART, 'values.schema.json'));
const configSchema = readJson(join(REPO, 'docs', 'schema', 'config.schema.json'));
const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;
const keys = (schema: Schema | undefined) => Object.keys(schema?.properties ?? {}).sort();

/** The configuration's fields the chart writes from values of its own (templates/_helpers.tpl). */
const SET_BY_THE_CHART = ['namespace', 'mode', 'kueue', 'temporal', 'kubeconfig'];

describe('deploy/helm/dispatch-kubeflow values', () => {
  it('values.yaml passes values.schema.json', () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(valuesSchema);
    expect(validate(values), JSON.stringify(validate.errors)).toBe(true);
  });

  it("values.schema.json refuses what the chart cannot render: another mode, an unknown value, the configuration's namespace under config", () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(valuesSchema);
    expect(validate({ ...values, mode: 'queued' })).toBe(false);
    expect(validate({ ...values, replica: 2 })).toBe(false);
    expect(validate({ ...values, config: { ...(values.config as object), namespace: 'ml-jobs' } })).toBe(
      false,
    );
  });

  it("`config` holds every field of the configuration but those the chart sets, and `kueue` every field of the configuration's kueue", () => {
    expect([...keys(valuesSchema.properties!.config), ...SET_BY_THE_CHART].sort()).toEqual(
      keys(configSchema),
    );
    expect(valuesSchema.properties!.config!.additionalProperties).toBe(false);
    expect(keys(valuesSchema.properties!.kueue)).toEqual(keys(configSchema.properties!.kueue));
    expect(keys(valuesSchema.properties!.config!.properties!.timeouts)).toEqual(
      keys(configSchema.properties!.timeouts),
    );
    expect(keys(valuesSchema.properties!.config!.properties!.publish)).toEqual(
      keys(configSchema.properties!.publish),
    );
  });

  it('every value in values.yaml is in values.schema.json, and the other way round', () => {
    expect(Object.keys(values).sort()).toEqual(keys(valuesSchema).filter((k) => k !== 'global'));
  });
});
