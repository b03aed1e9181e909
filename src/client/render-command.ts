// `dispatch-kubeflow render`: steps 2 to 4 of Start without creating anything. The runtime comes
// from a manifest file (its kind and name count for the allow-list) or, without one, from the cluster.
import { stringify } from 'yaml';
import type { Config } from '../model/config.js';
import { DispatchError } from '../model/errors.js';
import type { TrainerRuntime } from '../model/kube.js';
import { RuntimeKindSchema } from '../model/request.js';
import { planStart, type PlannedStart } from '../core/plan.js';
import { allowListRefusal } from '../core/refusals.js';
import { validate } from '../core/validate.js';
import type { RuntimeName, ValidRequest } from '../core/validated.js';

/** The runtime a manifest holds, with the identity the allow-list checks. */
export function runtimeFromManifest(manifest: unknown, file: string): { runtime: TrainerRuntime; name: RuntimeName } {
  const object = (manifest ?? {}) as TrainerRuntime;
  const kind = RuntimeKindSchema.safeParse(object.kind);
  const name = object.metadata?.name;
  if (!kind.success || typeof name !== 'string' || name === '') {
    throw new Error(`${file}: not a TrainingRuntime or ClusterTrainingRuntime manifest with metadata.name`);
  }
  return { runtime: object, name: { kind: kind.data, name } };
}

/** Validates and plans; the runtime's identity is the manifest's (or the cluster object's). */
export function renderOffline(request: unknown, source: { runtime: TrainerRuntime; name: RuntimeName }, config: Config): PlannedStart {
  const valid: ValidRequest = { ...validate(request), runtime: source.name };
  const notAllowed = allowListRefusal(source.name, config);
  if (notAllowed) throw notAllowed;
  return planStart(valid, source.runtime, config);
}

export function formatRendered(planned: PlannedStart, output: 'yaml' | 'json'): string {
  if (output === 'json') {
    const { runtimeCopy, trainJob, weakened } = planned;
    return `${JSON.stringify({ runtimeCopy, trainJob, ...(weakened ? { weakened } : {}) }, null, 2)}\n`;
  }
  const head = planned.weakened ? `# weakened: ${planned.weakened}\n` : '';
  return `${head}${stringify(planned.runtimeCopy)}---\n${stringify(planned.trainJob)}`;
}

export function formatRefusal(error: DispatchError, output: 'yaml' | 'json'): { stdout: string; stderr: string } {
  if (output === 'json') {
    const body = { error: { type: error.type, message: error.message, reasons: [...error.reasons] } };
    return { stdout: `${JSON.stringify(body, null, 2)}\n`, stderr: '' };
  }
  return { stdout: '', stderr: `${error.type}: refused at step ${error.step}\n${error.reasons.map((r) => `  - ${r}`).join('\n')}\n` };
}
