// StartRequest and JobSpec (docs/contract.md §2): the JSON a caller sends to StartTrainJob. The
// schemas are the single source of truth for the types, the field-level validation messages
// (go/dispatch's JobSpec.Validate and the request table of docs/start.md) and the exported JSON
// Schema.
import { z } from 'zod';
import { Limits, RESERVED_ENV_PREFIX } from './constants.js';
import { parseGoDuration } from './duration.js';

/** A ULID in canonical form: 26 Crockford base32 characters, upper case, the first 0-7. */
export const JOB_ID_PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
export const ENV_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const hasNul = (s: string) => s.includes('\u0000');

/**
 * Whether a string holds a UTF-16 surrogate that is not half of a pair: the API server cannot
 * store it as UTF-8, so a field that reaches the TrainJob is refused at validation instead.
 */
export const hasLoneSurrogate = (s: string) => /\p{Surrogate}/u.test(s);
export const LONE_SURROGATE = 'holds a lone UTF-16 surrogate, which Kubernetes cannot store';

/** The TrainJob CRD's maxLength of spec.trainer.image (Trainer v2.3.0), in characters (code points). */
export const IMAGE_MAX_LENGTH = 500;

/** A string that reaches the TrainJob: neither a NUL (`nul` names it) nor a lone surrogate. */
const storable = (nul: string) =>
  z
    .string()
    .refine((s) => !hasNul(s), { error: nul, abort: true })
    .refine((s) => !hasLoneSurrogate(s), { error: LONE_SURROGATE });

/** A Kubernetes object name: what a runtime's metadata.name must be. */
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether a spec's workDir is set (Go's WorkDir string: empty is unset), which adds DISPATCH_K8S_WORKDIR. */
export const hasWorkDir = (workDir: unknown): workDir is string => typeof workDir === 'string' && workDir !== '';

export const JobIdSchema = z
  .string()
  .regex(JOB_ID_PATTERN, { error: 'not a valid JobID' })
  .describe('JobID: a canonical ULID (26 Crockford base32 characters, upper case)');

export const TimeLimitSchema = z
  .string()
  // Empty is unset, as for every optional string: a Go caller without omitempty sends "".
  .refine((s) => s === '' || parseGoDuration(s) !== undefined, { error: 'not a Go duration (e.g. "90m", "2h0m0.25s")' })
  .refine((s) => (parseGoDuration(s) ?? 0n) >= 0n, { error: 'negative time limit' })
  .describe('Go duration; "0s", "" or absent means no limit; rounded up to a whole second');

export const CheckpointSchema = z
  .string()
  .refine((s) => s === '' || s.startsWith('/') || /^s3:\/\/[^/]+/.test(s), {
    error: 'checkpoint is neither an absolute path nor an s3:// URL',
  })
  .describe('An absolute path or an s3:// URL; "" or absent means none');

export const EnvSchema = z
  .record(z.string(), z.string())
  .superRefine((env, ctx) => {
    for (const [key, value] of Object.entries(env)) {
      if (hasNul(key) || hasNul(value)) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'NUL in env' });
      } else if (hasLoneSurrogate(key) || hasLoneSurrogate(value)) {
        ctx.addIssue({ code: 'custom', path: [key], message: LONE_SURROGATE });
      } else if (!ENV_KEY_PATTERN.test(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `malformed env key (must match ${ENV_KEY_PATTERN.source})` });
      } else if (key.startsWith(RESERVED_ENV_PREFIX)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `reserved env key (keys beginning ${RESERVED_ENV_PREFIX} are dispatch's)` });
      }
    }
  })
  .describe('Environment of the job; rendered sorted by key, before dispatch variables');

export const CommandSchema = z
  .array(storable('NUL in command'))
  .min(1, { error: 'no command' })
  .describe('The program and its arguments; reach the process byte for byte');

const count = (what: string) => z.int({ error: `${what} must be an integer` }).min(0, { error: `negative ${what}` });

export const RecoverySchema = z.strictObject({ policy: z.string().optional() }).describe('Recovery policy: accepted, put into nothing in the TrainJob');

export const ImageExtensionSchema = z.strictObject({
  // The reason's path already names the extension (spec.extensions.dispatch/Image.ref).
  ref: z
    .string()
    .min(1, { error: 'empty Ref', abort: true })
    .refine((s) => !hasLoneSurrogate(s), { error: LONE_SURROGATE, abort: true })
    .refine((s) => [...s].length <= IMAGE_MAX_LENGTH, {
      error: `longer than ${IMAGE_MAX_LENGTH} characters (the TrainJob CRD's maxLength of spec.trainer.image)`,
    }),
});

export const RuntimeKindSchema = z.enum(['TrainingRuntime', 'ClusterTrainingRuntime']);

export const RuntimeRefExtensionSchema = z.strictObject({
  kind: RuntimeKindSchema,
  name: z
    .string()
    .min(1, { error: 'empty name', abort: true })
    .max(253, { error: 'longer than 253 characters' })
    .regex(DNS1123_SUBDOMAIN, { error: 'not a valid runtime name (DNS-1123 subdomain)' }),
});

export const SharedCheckpointExtensionSchema = z.strictObject({});

export const JobSpecSchema = z
  .strictObject({
    name: z.string().nullish(),
    command: CommandSchema,
    env: EnvSchema.nullish(),
    workDir: storable('NUL in env')
      .nullish()
      .describe('Entered by the prologue (DISPATCH_K8S_WORKDIR); a missing directory exits 125'),
    nodes: z.int({ error: 'nodes must be an integer' }).min(1, { error: 'fewer than one node' }),
    gpusPerNode: count('GPU count').nullish(),
    procsPerNode: count('process count').nullish(),
    timeLimit: TimeLimitSchema.nullish(),
    checkpoint: CheckpointSchema.nullish(),
    recovery: RecoverySchema.nullish(),
    extensions: z
      .record(z.string(), z.unknown())
      .nullish()
      .describe('Keyed "<namespace>/<name>": dispatch/Image and kubeflow/RuntimeRef are required'),
  })
  .describe('go/dispatch JobSpec');

export const NativeSchema = z
  .strictObject({ requeue: z.boolean().nullish(), restart: z.boolean().nullish() })
  .describe('Accepted and ignored: the adapter declares NativeRequeue and NativeRestart no');

export const StartRequestSchema = z
  .strictObject({
    job: JobIdSchema,
    generation: z
      .int({ error: 'generation must be an integer' })
      .min(0, { error: 'negative generation' })
      .max(Limits.generationMax, { error: 'generation above 18,000,000' }),
    submission: z
      .int({ error: 'submission must be an integer' })
      .min(Limits.submissionMin, { error: 'submission outside 1 to 999,999' })
      .max(Limits.submissionMax, { error: 'submission outside 1 to 999,999' }),
    attempt: z.int({ error: 'attempt must be an integer' }).min(0, { error: 'negative attempt' }),
    spec: JobSpecSchema,
    native: NativeSchema.nullish(),
  })
  .describe('dispatch model.StartRequest');

export type StartRequest = z.infer<typeof StartRequestSchema>;
export type JobSpec = z.infer<typeof JobSpecSchema>;
export type RuntimeKind = z.infer<typeof RuntimeKindSchema>;
export type RuntimeRefExtension = z.infer<typeof RuntimeRefExtensionSchema>;
export type ImageExtension = z.infer<typeof ImageExtensionSchema>;

/**
 * What TrainJobCapabilities answers for (docs/contract.md §1). Capabilities checks the runtime, not
 * the rest of the spec, so only the fields it reads are checked and the others are let through.
 */
export const CapabilitiesRequestSchema = z.strictObject({
  spec: z.looseObject({
    procsPerNode: count('process count').nullish(),
    extensions: z.record(z.string(), z.unknown()).nullish(),
  }),
});
export type CapabilitiesRequest = z.infer<typeof CapabilitiesRequestSchema>;
