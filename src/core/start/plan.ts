// Steps 3 and 4 of Start as one pure function: check the runtime against the rules, check what the
// spec asks of it, and render. Shared by the workflow and the offline `render` command, so that
// both refuse and render alike.
import type { Config } from '../../model/config.js';
import { DispatchError } from '../../model/errors.js';
import type { TrainerRuntime } from '../../model/kube.js';
import { renderStart, type RenderedStart, type RenderOptions } from './render.js';
import { checkProcsPerNode, checkRuntime } from './runtime-rules.js';
import type { ValidRequest } from './validated.js';

export interface PlannedStart extends RenderedStart {
  /** The IdentityWeakener reason, when allowRankRestart waived a rule. */
  weakened?: string;
}

export function planStart(valid: ValidRequest, runtime: TrainerRuntime, config: Config, options: RenderOptions = {}): PlannedStart {
  const verdict = checkRuntime(runtime, valid.runtime, config);
  if (verdict.reasons.length > 0) throw new DispatchError('ErrUnsupported', verdict.reasons, 3);
  const procs = checkProcsPerNode(valid.request.spec.procsPerNode, verdict);
  if (procs.length > 0) throw new DispatchError('ErrUnsupported', procs, 4);
  const rendered = renderStart(valid, runtime, config, options);
  return verdict.weakened ? { ...rendered, weakened: verdict.weakened } : rendered;
}
