// Start requests for tests: docs/contract.md §2's example, with a fresh JobID each time so that tests
// sharing a namespace never collide on a TrainJob name.
import { randomJobId } from '../../src/client/job-id.js';
import type { StartRequest } from '../../src/model/request.js';

export { randomJobId };

export interface RequestOptions {
  runtime?: { kind: 'ClusterTrainingRuntime' | 'TrainingRuntime'; name: string };
  attempt?: number;
  submission?: number;
  spec?: Partial<StartRequest['spec']>;
}

export function startRequest(options: RequestOptions = {}): StartRequest {
  return {
    job: randomJobId(),
    generation: 3,
    submission: options.submission ?? 12,
    attempt: options.attempt ?? 1,
    spec: {
      name: 'resnet50',
      command: ['python', 'train.py', '--epochs', '10'],
      env: { LR: '0.1', WANDB_MODE: 'offline' },
      workDir: '/workspace',
      nodes: 2,
      gpusPerNode: 8,
      timeLimit: '2h30m',
      checkpoint: 's3://bucket/ckpt/resnet50',
      recovery: { policy: 'requeue' },
      ...options.spec,
      extensions: {
        'dispatch/Image': { ref: 'ghcr.io/example/train:1.4' },
        'kubeflow/RuntimeRef': options.runtime ?? { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' },
        'dispatch/SharedCheckpoint': {},
        ...(options.spec?.extensions ?? {}),
      },
    },
    native: { requeue: false, restart: false },
  };
}
