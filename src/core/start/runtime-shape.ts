// Navigating a Trainer runtime's spec: the few paths both the rules and the renderer read.
import { LabelValues, Labels } from '../../model/constants.js';
import type { TrainerRuntime } from '../../model/kube.js';

type Obj = Record<string, unknown>;

export const asObject = (value: unknown): Obj | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;

export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** spec.mlPolicy, or undefined. */
export function mlPolicy(runtime: TrainerRuntime): Obj | undefined {
  return asObject(asObject(runtime.spec)?.mlPolicy);
}

/** Whether the runtime's mlPolicy names torch (the only runtimes that honour numProcPerNode). */
export function hasTorchPolicy(runtime: TrainerRuntime): boolean {
  return asObject(mlPolicy(runtime)?.torch) !== undefined;
}

/** spec.template.spec.replicatedJobs: the JobSet's replicated jobs. */
export function replicatedJobs(runtime: TrainerRuntime): Obj[] {
  const jobSetSpec = asObject(asObject(asObject(runtime.spec)?.template)?.spec);
  return asArray(jobSetSpec?.replicatedJobs).map((job) => asObject(job) ?? {});
}

/** The JobSet spec (spec.template.spec), for its failurePolicy. */
export function jobSetSpec(runtime: TrainerRuntime): Obj | undefined {
  return asObject(asObject(asObject(runtime.spec)?.template)?.spec);
}

/** Whether a replicated job is the trainer one: its template carries the ancestor-step label. */
export function isTrainerJob(job: Obj): boolean {
  const labels = asObject(asObject(asObject(job.template)?.metadata)?.labels);
  return labels?.[Labels.trainerAncestorStep] === LabelValues.trainerStep;
}

/** The trainer replicated job, or undefined when there is none. */
export function trainerJob(runtime: TrainerRuntime): Obj | undefined {
  return replicatedJobs(runtime).find(isTrainerJob);
}

/** The Job spec inside a replicated job (template.spec). */
export function jobSpec(job: Obj): Obj | undefined {
  return asObject(asObject(job.template)?.spec);
}

/** The pod spec inside a replicated job (template.spec.template.spec). */
export function podSpec(job: Obj): Obj | undefined {
  return asObject(asObject(jobSpec(job)?.template)?.spec);
}

/** Names of a pod spec's containers or initContainers. */
export function containerNames(pod: Obj | undefined, field: 'containers' | 'initContainers'): string[] {
  return asArray(pod?.[field])
    .map((c) => asObject(c)?.name)
    .filter((n): n is string => typeof n === 'string');
}
