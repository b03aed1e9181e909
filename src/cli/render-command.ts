// `dispatch-kubeflow render`: steps 2 to 4 of Start without creating anything. The runtime comes
// from a manifest file (its kind and name count for the allow-list) or, without one, from the cluster.
import { stringify } from 'yaml';
import type { Config } from '../model/config.js';
import { DispatchError } from '../model/errors.js';
import type { TrainerRuntime } from '../model/kube.js';
import { issuesToReasons } from '../model/issues.js';
import { RuntimeRefExtensionSchema } from '../model/request.js';
import { planStart, type PlannedStart } from '../core/start/plan.js';
import { allowListRefusal } from '../core/start/refusals.js';
import { asObject } from '../core/start/runtime-shape.js';
import { validate } from '../core/start/validate.js';
import type { ValidRequest } from '../core/start/validated.js';
import type { RuntimeName } from '../core/objects/runtime-name.js';

/**
 * The runtime a manifest holds, with the identity the allow-list checks. Its kind and name are held
 * to the rules a request's kubeflow/RuntimeRef is, since they stand in for it.
 */
export function runtimeFromManifest(manifest: unknown, file: string): { runtime: TrainerRuntime; name: RuntimeName } {
  const object = asObject(manifest) ?? {};
  const identity = RuntimeRefExtensionSchema.safeParse({ kind: object.kind, name: asObject(object.metadata)?.name }, { reportInput: true });
  if (!identity.success) {
    const reasons = issuesToReasons(identity.error.issues).map((reason) => reason.replace(/^name:/, 'metadata.name:'));
    throw new Error(`${file}: not a TrainingRuntime or ClusterTrainingRuntime manifest (${reasons.join('; ')})`);
  }
  return { runtime: object as TrainerRuntime, name: identity.data };
}

/** Validates and plans; the runtime's identity is the manifest's (or the cluster object's). */
export function renderOffline(request: unknown, source: { runtime: TrainerRuntime; name: RuntimeName }, config: Config): PlannedStart {
  const valid: ValidRequest = { ...validate(request), runtime: source.name };
  const notAllowed = allowListRefusal(source.name, config);
  if (notAllowed) throw notAllowed;
  return planStart(valid, source.runtime, config);
}

/*
 * No line folding: a folded scalar would show the prologue with line breaks that are not in it,
 * where a literal block shows it exactly as the container's shell receives it.
 */
const toYaml = (value: unknown): string => stringify(value, { lineWidth: 0 });

export function formatRendered(planned: PlannedStart, output: 'yaml' | 'json'): string {
  if (output === 'json') {
    const { runtimeCopy, trainJob, weakened } = planned;
    return `${JSON.stringify({ runtimeCopy, trainJob, ...(weakened ? { weakened } : {}) }, null, 2)}\n`;
  }
  const head = planned.weakened ? `# weakened: ${planned.weakened}\n` : '';
  return `${head}${toYaml(planned.runtimeCopy)}---\n${toYaml(planned.trainJob)}`;
}

/**
 * A typed refusal as the CLI prints it. `start` shares it: a failure after the TrainJob was created
 * carries its ref (docs/contract.md §6), which the caller needs to act on ErrOutcomeUnknown, so the
 * ref is printed when there is one; `render` never has one. The operations after Start have no
 * step (it is 0), so theirs says none.
 */
export function formatRefusal(error: DispatchError, output: 'yaml' | 'json'): { stdout: string; stderr: string } {
  const { type, message, reasons, ref } = error;
  if (output === 'json') {
    const body = { error: { type, message, reasons: [...reasons], ...(ref ? { ref } : {}) } };
    return { stdout: `${JSON.stringify(body, null, 2)}\n`, stderr: '' };
  }
  const trainJob = ref ? `, TrainJob ${ref.namespace}/${ref.name} (uid ${ref.uid || 'unknown'})` : '';
  const where = error.step > 0 ? ` at step ${error.step}` : '';
  return { stdout: '', stderr: `${type}: refused${where}${trainJob}\n${reasons.map((r) => `  - ${r}`).join('\n')}\n` };
}
