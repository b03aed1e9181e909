// Step 4 of Start: everything Start writes to Kubernetes, computed from the validated request, the
// source runtime and the configuration alone (docs/contract.md §3, §4; docs/start.md, "The
// TrainJob" and "The runtime copy"). Deterministic and free of I/O: the workflow renders,
// activities only send.
import type { Config } from '../../model/config.js';
import { Annotations, EnvVars, Labels, LabelValues, Trainer } from '../../model/constants.js';
import { ceilSeconds, parseGoDuration } from '../../model/duration.js';
import type {
  EnvVar,
  ObjectMeta,
  TrainerRuntime,
  TrainerSpec,
  TrainJob,
  TrainJobSpec,
} from '../../model/kube.js';
import { attemptToken, comment, epochPrefix, trainJobName } from './names.js';
import { trainerCommand } from './prologue.js';
import { runtimePatch } from './runtime-patch.js';
import { hasTorchPolicy } from './runtime-shape.js';
import { type ValidRequest } from './validated.js';
import { runtimeKey } from '../objects/runtime-name.js';

export interface RenderOptions {
  /** The preflight probe: its runtime patch adds a node selector no node matches. */
  probe?: boolean;
}

export interface RenderedStart {
  runtimeCopy: TrainerRuntime;
  trainJob: TrainJob;
}

const DECIMAL_SI_SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'];

/**
 * A whole count as Kubernetes writes a canonical DecimalSI quantity ("8", "1k"). A webhook that
 * decodes the TrainJob into Go types and re-encodes it writes quantities this way, so writing the
 * canonical form keeps read-back equal whichever path the object took.
 */
export function decimalQuantity(count: number): string {
  let mantissa = count;
  let exponent = 0;
  while (mantissa !== 0 && mantissa % 1000 === 0 && exponent < DECIMAL_SI_SUFFIXES.length - 1) {
    mantissa /= 1000;
    exponent += 1;
  }
  return `${mantissa}${DECIMAL_SI_SUFFIXES[exponent]}`;
}

/** Byte order of the UTF-8 encodings, which is code point order (not UTF-16 order, not locale). */
export function compareBytes(a: string, b: string): number {
  const left = Array.from(a, (c) => c.codePointAt(0)!);
  const right = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i]! - right[i]!;
  }
  return left.length - right.length;
}

/*
 * An empty value is written as no value: Kubernetes gives the variable the empty string either
 * way, and a Go round trip (omitempty) would drop `value: ""`, which read-back would then see as a
 * change.
 */
function envVar(name: string, value: string): EnvVar {
  return value === '' ? { name } : { name, value };
}

function trainerEnv(valid: ValidRequest, token: string): EnvVar[] {
  const { job, generation, submission, attempt, spec } = valid.request;
  const jobEnv = Object.entries(spec.env ?? {})
    .sort(([a], [b]) => compareBytes(a, b))
    .map(([name, value]) => envVar(name, value));
  const dispatchEnv: [string, string][] = [
    [EnvVars.jobId, job],
    [EnvVars.generation, String(generation)],
    [EnvVars.submission, String(submission)],
    [EnvVars.attempt, String(attempt)],
    [EnvVars.attemptToken, token],
    [EnvVars.epochPrefix, String(epochPrefix(generation, submission))],
  ];
  if (spec.workDir) dispatchEnv.push([EnvVars.workDir, spec.workDir]);
  return [...jobEnv, ...dispatchEnv.map(([name, value]) => envVar(name, value))];
}

function trainerSpec(
  valid: ValidRequest,
  runtime: TrainerRuntime,
  config: Config,
  token: string,
): TrainerSpec {
  const { spec } = valid.request;
  const trainer: TrainerSpec = {
    image: valid.image,
    command: trainerCommand(spec.command),
    env: trainerEnv(valid, token),
    numNodes: spec.nodes,
  };
  // Validation refuses ProcsPerNode on a runtime without mlPolicy.torch; the check here keeps a
  // runtime that would ignore the field from ever receiving it.
  if ((spec.procsPerNode ?? 0) > 0 && hasTorchPolicy(runtime)) trainer.numProcPerNode = spec.procsPerNode!;
  if ((spec.gpusPerNode ?? 0) > 0) {
    trainer.resourcesPerNode = { limits: { [config.gpuResource]: decimalQuantity(spec.gpusPerNode!) } };
  }
  return trainer;
}

/** spec.activeDeadlineSeconds: TimeLimit rounded up to a whole second, or undefined when none. */
export function activeDeadlineSeconds(timeLimit: string | null | undefined): number | undefined {
  const nanos = timeLimit ? parseGoDuration(timeLimit) : undefined;
  return nanos !== undefined && nanos > 0n ? ceilSeconds(nanos) : undefined;
}

/** A deep copy of JSON read from the API; it needs nothing from the host, unlike structuredClone. */
function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * The runtime copy's and the TrainJob's metadata: both carry dispatch's labels and annotations
 * (docs/contract.md §3); the copy names its source runtime, and in Kueue mode the TrainJob names
 * its queue and carries dispatch's gate.
 */
function metadataOf(valid: ValidRequest, config: Config, name: string, token: string): { copy: ObjectMeta; trainJob: ObjectMeta } {
  const { job, generation, submission, attempt } = valid.request;
  const kueue = config.mode === 'kueue';
  const namespace = config.namespace;
  const labels: Record<string, string> = {
    [Labels.managedBy]: LabelValues.managedBy,
    [Labels.jobId]: job.toLowerCase(),
    [Labels.generation]: String(generation),
    [Labels.submission]: String(submission),
  };
  const annotations: Record<string, string> = {
    [Annotations.comment]: comment(job, generation, submission, attempt),
    [Annotations.attemptToken]: token,
  };
  return {
    copy: {
      name,
      namespace,
      labels: { ...labels },
      annotations: { ...annotations, [Annotations.sourceRuntime]: runtimeKey(valid.runtime) },
    },
    trainJob: {
      name,
      namespace,
      labels: kueue ? { ...labels, [Labels.kueueQueueName]: config.kueue.queue } : { ...labels },
      annotations: kueue
        ? { ...annotations, [Annotations.kueueAdmissionGatedBy]: config.kueue.gate }
        : { ...annotations },
    },
  };
}

/** What Start writes (docs/start.md): the runtime copy, and the TrainJob that runs on it. */
export function renderStart(
  valid: ValidRequest,
  runtime: TrainerRuntime,
  config: Config,
  options: RenderOptions = {},
): RenderedStart {
  const { job, submission, attempt, spec } = valid.request;
  const kueue = config.mode === 'kueue';
  const name = trainJobName(job, submission);
  const token = attemptToken(config.namespace, name, attempt);
  const source = runtimeKey(valid.runtime);
  const meta = metadataOf(valid, config, name, token);
  const deadline = activeDeadlineSeconds(spec.timeLimit);
  const trainJobSpec: TrainJobSpec = {
    runtimeRef: { apiGroup: Trainer.group, kind: Trainer.trainingRuntimeKind, name },
    // Plain mode closes the start gate with suspend; in Kueue mode the key is Kueue's to set.
    ...(kueue ? {} : { suspend: true }),
    trainer: trainerSpec(valid, runtime, config, token),
    ...(deadline === undefined ? {} : { activeDeadlineSeconds: deadline }),
    runtimePatches: [
      runtimePatch(
        runtime,
        {
          jobId: job,
          submission,
          runtimeKey: source,
          probe: options.probe === true,
        },
        config,
      ),
    ],
  };

  return {
    runtimeCopy: {
      apiVersion: Trainer.apiVersion,
      kind: Trainer.trainingRuntimeKind,
      metadata: meta.copy,
      spec: copyJson(runtime.spec ?? {}),
    },
    trainJob: {
      apiVersion: Trainer.apiVersion,
      kind: Trainer.trainJobKind,
      metadata: meta.trainJob,
      spec: trainJobSpec,
    },
  };
}
