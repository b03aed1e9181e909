// The JSON Schemas published in docs/schema/, generated from the zod schemas so that the two never
// disagree. They describe what a caller sends (zod's input side: defaults are optional).
import { z } from 'zod';
import { ConfigSchema } from './config.js';
import { OutcomeSchema, TrainJobRefSchema, TrainJobStateSchema } from './operations.js';
import { StartRequestSchema } from './request.js';

const SCHEMA_ID_BASE = 'https://dispatch.phpboyscout.uk/schema/dispatch-kubeflow';

export const PUBLISHED_SCHEMAS = {
  'start-request.schema.json': { schema: StartRequestSchema, title: 'StartRequest' },
  'config.schema.json': { schema: ConfigSchema, title: 'dispatch-kubeflow configuration' },
  // The operations after Start (docs/contract.md §9): their input, and their two kinds of result.
  'trainjob-ref.schema.json': { schema: TrainJobRefSchema, title: 'TrainJobRef' },
  'trainjob-state.schema.json': { schema: TrainJobStateSchema, title: 'TrainJobState' },
  'outcome.schema.json': { schema: OutcomeSchema, title: 'Outcome' },
} as const;

/** The text of one published schema file, stable across runs (for the up-to-date test). */
export function renderJsonSchema(file: keyof typeof PUBLISHED_SCHEMAS): string {
  const { schema, title } = PUBLISHED_SCHEMAS[file];
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  return `${JSON.stringify({ $id: `${SCHEMA_ID_BASE}/${file}`, title, ...json }, null, 2)}\n`;
}
