// The JSON Schemas published in docs/schema/, generated from the zod schemas so that the two never
// disagree. They describe what a caller sends (zod's input side: defaults are optional); the Go
// client's types are checked against them field by field (go/dispatchkubeflow/schema_test.go).
import { z } from 'zod';
import { ConfigSchema } from './config.js';
import { FailureDetailsSchema } from './error-schemas.js';
import { OutcomeSchema, TrainJobRefSchema, TrainJobStateSchema } from './operations.js';
import { ImageExtensionSchema, RuntimeRefExtensionSchema, SharedCheckpointExtensionSchema, StartRequestSchema } from './request.js';
import { BackendGatesSchema, CapabilitiesSchema, FindResultSchema, StartResultSchema } from './results.js';

const SCHEMA_ID_BASE = 'https://dispatch.phpboyscout.uk/schema/dispatch-kubeflow';

export const PUBLISHED_SCHEMAS = {
  'start-request.schema.json': { schema: StartRequestSchema, title: 'StartRequest' },
  'config.schema.json': { schema: ConfigSchema, title: 'dispatch-kubeflow configuration' },
  // The operations after Start (docs/contract.md §9): their input, and their two kinds of result.
  'trainjob-ref.schema.json': { schema: TrainJobRefSchema, title: 'TrainJobRef' },
  'trainjob-state.schema.json': { schema: TrainJobStateSchema, title: 'TrainJobState' },
  'outcome.schema.json': { schema: OutcomeSchema, title: 'Outcome' },
  // The extensions of spec.extensions the worker knows (docs/contract.md §2), by key.
  'image-extension.schema.json': { schema: ImageExtensionSchema, title: 'dispatch/Image' },
  'runtime-ref-extension.schema.json': { schema: RuntimeRefExtensionSchema, title: 'kubeflow/RuntimeRef' },
  'shared-checkpoint-extension.schema.json': { schema: SharedCheckpointExtensionSchema, title: 'dispatch/SharedCheckpoint' },
  // The other results (docs/contract.md §1, §7, §8), and the details of every typed failure (§6).
  'start-result.schema.json': { schema: StartResultSchema, title: 'StartResult' },
  'capabilities.schema.json': { schema: CapabilitiesSchema, title: 'Capabilities' },
  'backend-gates.schema.json': { schema: BackendGatesSchema, title: 'BackendGates' },
  'find-result.schema.json': { schema: FindResultSchema, title: 'FindResult' },
  'failure-details.schema.json': { schema: FailureDetailsSchema, title: 'FailureDetails' },
} as const;

/** The text of one published schema file, stable across runs (for the up-to-date test). */
export function renderJsonSchema(file: keyof typeof PUBLISHED_SCHEMAS): string {
  const { schema, title } = PUBLISHED_SCHEMAS[file];
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  return `${JSON.stringify({ $id: `${SCHEMA_ID_BASE}/${file}`, title, ...json }, null, 2)}\n`;
}
