// TrainJobCapabilities' answer (docs/runtime-rules.md: capabilities apply the same rules): the
// runtime rules refuse, and ProcsPerNode is answered, never refused.
import type { Config } from '../../model/config.js';
import { DispatchError } from '../../model/errors.js';
import type { TrainerRuntime } from '../../model/kube.js';
import type { Capabilities } from '../../model/results.js';
import { RULES_STEP, checkRuntime } from './runtime-rules.js';
import { type RuntimeName, runtimeKey } from '../objects/runtime-name.js';

/** What a runtime supports, or ErrUnsupported (step 3) naming every rule it breaks. */
export function capabilities(runtime: TrainerRuntime, ref: RuntimeName, config: Config): Capabilities {
  const verdict = checkRuntime(runtime, ref, config);
  if (verdict.reasons.length > 0) throw new DispatchError('ErrUnsupported', verdict.reasons, RULES_STEP);
  return {
    runtime: runtimeKey(ref),
    procsPerNode: verdict.torch,
    ...(verdict.weakened !== undefined ? { weakened: verdict.weakened } : {}),
  };
}
