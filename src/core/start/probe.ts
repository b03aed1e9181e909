// The preflight probe (docs/start.md, "The preflight probe"): a Start like any other, with a spec of
// its own, rendered with { probe: true } so its runtime patch pins it to a node no node matches.
import type { Config } from '../../model/config.js';
import { Extensions, Probe } from '../../model/constants.js';
import type { TrainerRuntime } from '../../model/kube.js';
import { renderStart, type RenderedStart } from './render.js';
import { type ValidRequest } from './validated.js';
import { parseRuntimeKey } from '../objects/runtime-name.js';

/**
 * Every probe's JobID starts with these 17 characters: a canonical ULID whose timestamp part is
 * zero, so it can never be mistaken for a real job, then "DSPATCH" (Crockford base32 has no I, L,
 * O or U).
 */
export const PROBE_JOB_PREFIX = '0000000000DSPATCH';

/**
 * The probe's JobID when no run gives it one (the offline `render` and the golden files): its
 * TrainJob is dj-0000000000dspatchpr0be0000-s1.
 */
export const PROBE_JOB_ID = `${PROBE_JOB_PREFIX}PR0BE0000`;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const PROBE_RANDOM_CHARS = 9;

/**
 * A probe's own JobID: PROBE_JOB_PREFIX, then 9 Crockford characters (45 bits) from the hex digits
 * of a UUID the workflow draws (uuid4(), replayed from its history). Each probe run has its own
 * TrainJob and runtime copy names, so two workers probing at once, or a probe whose predecessor's
 * copy the garbage collector has not yet removed (or whose stop failed), never meet each other's
 * objects.
 */
export function probeJobId(uuid: string): string {
  const hex = uuid.replace(/[^0-9a-f]/gi, '');
  if (hex.length < 12) throw new Error(`probeJobId: ${JSON.stringify(uuid)} has fewer than 12 hex digits`);
  // 12 hex digits are 48 bits; the top 45 make the 9 characters.
  let bits = BigInt(`0x${hex.slice(0, 12)}`) >> 3n;
  let random = '';
  for (let i = 0; i < PROBE_RANDOM_CHARS; i++) {
    random = CROCKFORD[Number(bits & 31n)]! + random;
    bits >>= 5n;
  }
  return `${PROBE_JOB_PREFIX}${random}`;
}

/** The probe's generation; with submission 1 its epoch prefix is 1. */
export const PROBE_GENERATION = 0;

/** Whether a TrainJob's JobID is a probe's. */
export const isProbeJobId = (jobId: string): boolean => jobId.toUpperCase().startsWith(PROBE_JOB_PREFIX);

export function probeRequest(config: Config, jobId: string = PROBE_JOB_ID): ValidRequest {
  const runtime = parseRuntimeKey(config.probeRuntime);
  return {
    request: {
      job: jobId,
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
