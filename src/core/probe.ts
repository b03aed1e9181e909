// The preflight probe (seed 000, "The preflight probe"): a Start like any other, with a spec of
// its own, rendered with { probe: true } so its runtime patch pins it to a node no node matches.
import type { Config } from '../model/config.js';
import { Extensions, Probe } from '../model/constants.js';
import type { TrainerRuntime } from '../model/kube.js';
import { renderStart, type RenderedStart } from './render.js';
import { parseRuntimeKey, type ValidRequest } from './validated.js';

/**
 * The probe's JobID: a canonical ULID whose timestamp part is zero, so it can never be mistaken
 * for a real job, and whose random part spells "DSPATCHPR0BE" (Crockford base32 has no I, L, O or
 * U). Its TrainJob is dj-0000000000dspatchpr0be0000-s1.
 */
export const PROBE_JOB_ID = '0000000000DSPATCHPR0BE0000';

/** The probe's generation; with submission 1 its epoch prefix is 1. */
export const PROBE_GENERATION = 0;

export function probeRequest(config: Config): ValidRequest {
  const runtime = parseRuntimeKey(config.probeRuntime);
  return {
    request: {
      job: PROBE_JOB_ID,
      generation: PROBE_GENERATION,
      submission: Probe.submission,
      attempt: Probe.attempt,
      spec: {
        command: [...Probe.command],
        nodes: Probe.nodes,
        extensions: {
          [Extensions.image]: { ref: Probe.image },
          [Extensions.runtimeRef]: { kind: runtime.kind, name: runtime.name },
        },
      },
    },
    image: Probe.image,
    runtime,
  };
}

/** The probe's runtime copy and TrainJob, on the runtime named by probeRuntime. */
export function renderProbe(runtime: TrainerRuntime, config: Config): RenderedStart {
  return renderStart(probeRequest(config), runtime, config, { probe: true });
}
