import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { PUBLISHED_SCHEMAS, renderJsonSchema } from '../../../src/model/json-schema.js';

const docs = join(import.meta.dirname, '..', '..', '..', 'docs', 'schema');
const exampleRequest = {
  job: '01JD0Q3J0Y6Q7J7Z4W2X5V8K9M',
  generation: 3,
  submission: 12,
  attempt: 1,
  spec: {
    name: 'resnet50',
    command: ['python', 'train.py', '--epochs', '10'],
    env: { LR: '0.1', WANDB_MODE: 'offline' },
    workDir: '/workspace',
    nodes: 2,
    gpusPerNode: 8,
    procsPerNode: 8,
    timeLimit: '2h30m',
    checkpoint: 's3://bucket/ckpt/resnet50',
    recovery: { policy: 'requeue' },
    extensions: {
      'dispatch/Image': { ref: 'ghcr.io/example/train:1.4' },
      'kubeflow/RuntimeRef': { kind: 'ClusterTrainingRuntime', name: 'torch-distributed' },
      'dispatch/SharedCheckpoint': {},
    },
  },
  native: { requeue: false, restart: false },
};

describe('published JSON Schemas (docs/schema)', () => {
  it.each(Object.keys(PUBLISHED_SCHEMAS))('%s is current with the zod model (run `npm run schema`)', (file) => {
    const onDisk = readFileSync(join(docs, file), 'utf8');
    expect(onDisk).toBe(renderJsonSchema(file as keyof typeof PUBLISHED_SCHEMAS));
  });

  it("accepts CONTRACT §2's example request and refuses an unknown key", () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(renderJsonSchema('start-request.schema.json')));
    expect(validate(exampleRequest)).toBe(true);
    expect(validate({ ...exampleRequest, extra: 1 })).toBe(false);
    expect(validate({ ...exampleRequest, generation: 1.5 })).toBe(false);
  });

  it("accepts CONTRACT §5's example config", () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(renderJsonSchema('config.schema.json')));
    const config = {
      namespace: 'ml-jobs',
      runtimes: [],
      mode: 'plain',
      kueue: { queue: 'user-queue', admissionCheck: 'dispatch', gate: 'dispatch.phpboyscout.uk/start', workloadVersion: 'v1beta2' },
      timeouts: { workload: '60s', call: '30s' },
      gpuResource: 'nvidia.com/gpu',
      allowRankRestart: false,
      publish: { via: 'env', initContainer: 'dispatch-publish' },
      probeRuntime: 'ClusterTrainingRuntime/dispatch-probe',
      temporal: { taskQueue: 'dispatch-kubeflow' },
      kubeconfig: '',
    };
    expect(validate(config)).toBe(true);
    expect(validate({ ...config, mode: 'other' })).toBe(false);
  });
});
