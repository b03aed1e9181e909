// The golden cases: one request, runtime and configuration each, rendered into
// test/golden/<name>.yaml. UPDATE_GOLDEN=1 rewrites the files; otherwise a difference fails.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ConfigSchema, type Config, type ConfigInput } from '../../src/model/config.js';
import { Extensions } from '../../src/model/constants.js';
import type { TrainerRuntime } from '../../src/model/kube.js';
import type { ImageExtension, RuntimeRefExtension, StartRequest } from '../../src/model/request.js';
import type { ValidRequest } from '../../src/core/start/validated.js';

export const GOLDEN_DIR = fileURLToPath(new URL('.', import.meta.url));

/** A fresh copy of a runtime under test/golden/inputs, by file name without .yaml. */
export function loadInputRuntime(name: string): TrainerRuntime {
  return parse(readFileSync(fileURLToPath(new URL(`./inputs/${name}.yaml`, import.meta.url)), 'utf8')) as TrainerRuntime;
}

export const config = (input: Partial<ConfigInput> = {}): Config => ConfigSchema.parse({ namespace: 'ml-jobs', ...input });

export const KUEUE: Partial<ConfigInput> = {
  mode: 'kueue',
  kueue: { queue: 'user-queue', admissionCheck: 'dispatch' },
};

/** The ValidRequest validation hands on, built directly from a request already known to be valid. */
export function validOf(request: StartRequest): ValidRequest {
  const extensions = request.spec.extensions ?? {};
  return {
    request,
    image: (extensions[Extensions.image] as ImageExtension).ref,
    runtime: extensions[Extensions.runtimeRef] as RuntimeRefExtension,
  };
}

/** docs/contract.md §2's example request, on the given runtime. */
export function exampleRequest(runtime: RuntimeRefExtension, spec: Partial<StartRequest['spec']> = {}): StartRequest {
  return {
    job: '01JD0Q3J0Y6Q7J7Z4W2X5V8K9M',
    generation: 3,
    submission: 12,
    attempt: 1,
    spec: {
      name: 'resnet50',
      command: ['python', 'train.py', '--epochs', '10'],
      env: { WANDB_MODE: 'offline', LR: '0.1', A_EMPTY: '' },
      nodes: 2,
      gpusPerNode: 8,
      timeLimit: '2h30m',
      checkpoint: 's3://bucket/ckpt/resnet50',
      recovery: { policy: 'requeue' },
      extensions: {
        [Extensions.image]: { ref: 'ghcr.io/example/train:1.4' },
        [Extensions.runtimeRef]: runtime,
        [Extensions.sharedCheckpoint]: {},
      },
      ...spec,
    },
    native: { requeue: false, restart: false },
  };
}

export interface GoldenCase {
  name: string;
  /** What the case shows, with the table row it exercises. */
  about: string;
  runtime: string;
  config: Config;
  /** Absent for the probe, which builds its own request. */
  request?: StartRequest;
}

const DISPATCH_KIND: RuntimeRefExtension = { kind: 'ClusterTrainingRuntime', name: 'dispatch-kind' };

export const GOLDEN_CASES: GoldenCase[] = [
  {
    name: 'plain',
    about: 'plain mode: spec.suspend true, no Kueue keys; docs/contract.md §2 example request on the example runtime dispatch-kind',
    runtime: 'dispatch-kind',
    config: config(),
    request: exampleRequest(DISPATCH_KIND),
  },
  {
    name: 'kueue',
    about: 'Kueue mode: queue label, admission-gated-by annotation, no spec.suspend; TimeLimit 1.5s becomes 2',
    runtime: 'dispatch-kind',
    config: config(KUEUE),
    request: exampleRequest(DISPATCH_KIND, { timeLimit: '1.5s' }),
  },
  {
    name: 'torch-procs',
    about: 'torch runtime with ProcsPerNode: spec.trainer.numProcPerNode; custom gpuResource',
    runtime: 'torch-distributed',
    config: config({ gpuResource: 'amd.com/gpu' }),
    request: exampleRequest(
      { kind: 'ClusterTrainingRuntime', name: 'torch-distributed' },
      { nodes: 4, gpusPerNode: 8, procsPerNode: 8, timeLimit: undefined },
    ),
  },
  {
    name: 'workdir',
    about: 'WorkDir: DISPATCH_K8S_WORKDIR is the seventh dispatch variable; no GPUs, no time limit',
    runtime: 'dispatch-kind',
    config: config(),
    request: exampleRequest(DISPATCH_KIND, {
      workDir: '/workspace/resnet 50',
      gpusPerNode: 0,
      timeLimit: '0s',
      command: ['python', '-c', 'print("it\'s $HOME")', ''],
    }),
  },
  {
    name: 'init-container',
    about: 'publish.via initContainer: the init container gets the pod and node variables and the pod volume; a TrainingRuntime source',
    runtime: 'publish',
    config: config({ publish: { via: 'initContainer', initContainer: 'dispatch-publish' } }),
    request: exampleRequest({ kind: 'TrainingRuntime', name: 'publish' }, { nodes: 1, env: {} }),
  },
  {
    name: 'probe',
    about: 'the preflight probe: image dispatch.invalid/never:probe, command true, the never node selector',
    runtime: 'dispatch-probe',
    config: config(),
  },
];
