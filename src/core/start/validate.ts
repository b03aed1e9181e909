// Start's request checks (docs/start.md: the request, spec and extension tables; docs/contract.md
// §2): every problem at once. Field-local messages live in the zod schemas; what spans fields or
// reads the extension table is here, and is checked on the raw input even when the parse failed
// elsewhere.
import type { z } from 'zod';
import { Extensions, Limits } from '../../model/constants.js';
import { DispatchError } from '../../model/errors.js';
import { formatPath, issuesToReasons, typeOfJson } from '../../model/issues.js';
import {
  CapabilitiesRequestSchema,
  ImageExtensionSchema,
  RuntimeRefExtensionSchema,
  SharedCheckpointExtensionSchema,
  StartRequestSchema,
  hasWorkDir,
} from '../../model/request.js';
import { asObject } from './runtime-shape.js';
import type { ValidRequest } from './validated.js';
import type { RuntimeName } from '../objects/runtime-name.js';

/** Start refuses the request and its spec at step 4 ("Renders the TrainJob ... refusing what the tables below refuse"). */
export const VALIDATE_STEP = 4;

type Obj = Record<string, unknown>;

/** What the extension table yields: the two required values when valid, and every reason. */
interface ExtensionReading {
  image?: string;
  runtime?: RuntimeName;
  invalid: string[];
  unsupported: string[];
}

/**
 * Which extensions a caller reads. Start reads the whole table and refuses unknown keys;
 * Capabilities checks the runtime, not the rest of the spec, so it reads RuntimeRef alone.
 */
type ExtensionScope = 'start' | 'capabilities';

const KNOWN_EXTENSIONS: ReadonlySet<string> = new Set(Object.values(Extensions));

/** One extension's value, parsed by its schema; its reasons go to `invalid`. */
function readExtension<T>(
  extensions: Obj,
  key: string,
  schema: z.ZodType<T>,
  required: boolean,
  invalid: string[],
): T | undefined {
  const path = ['spec', 'extensions', key];
  // Own keys only: a map read from JSON must not find Object.prototype's "constructor".
  if (!Object.hasOwn(extensions, key) || extensions[key] === undefined) {
    if (required) invalid.push(`${formatPath(path)}: is required`);
    return undefined;
  }
  const parsed = schema.safeParse(extensions[key], { reportInput: true });
  if (parsed.success) return parsed.data;
  invalid.push(...issuesToReasons(parsed.error.issues, path));
  return undefined;
}

/**
 * The extension table of a raw spec (docs/start.md, "Extensions"). A spec or extension map of the
 * wrong type yields nothing here: the schema parse already names it.
 */
function readExtensions(rawSpec: unknown, scope: ExtensionScope): ExtensionReading {
  const reading: ExtensionReading = { invalid: [], unsupported: [] };
  const spec = asObject(rawSpec);
  if (spec === undefined) return reading;
  const rawExtensions = spec.extensions ?? {};
  const extensions = asObject(rawExtensions);
  if (extensions === undefined) return reading;

  const runtime = readExtension(extensions, Extensions.runtimeRef, RuntimeRefExtensionSchema, true, reading.invalid);
  if (runtime !== undefined) reading.runtime = { kind: runtime.kind, name: runtime.name };
  if (scope === 'capabilities') return reading;

  const image = readExtension(extensions, Extensions.image, ImageExtensionSchema, true, reading.invalid);
  if (image !== undefined) reading.image = image.ref;
  readExtension(extensions, Extensions.sharedCheckpoint, SharedCheckpointExtensionSchema, false, reading.invalid);
  for (const key of Object.keys(extensions)) {
    if (!KNOWN_EXTENSIONS.has(key)) reading.unsupported.push(`extension ${key} is not supported on Kubeflow`);
  }
  return reading;
}

/**
 * What the schema cannot see on a raw spec: Trainer's 128-item limits on command and env, less
 * what dispatch adds (docs/start.md, JobSpec table), and an env key zod would drop.
 */
function rawSpecReasons(rawSpec: unknown): string[] {
  const spec = asObject(rawSpec);
  if (spec === undefined) return [];
  const reasons: string[] = [];
  const command = spec.command;
  if (Array.isArray(command) && command.length > Limits.commandMax) {
    reasons.push(
      `spec.command: ${command.length} items; at most ${Limits.commandMax} are allowed ` +
        `(Trainer allows ${Limits.trainerListMax}, the prologue takes ${Limits.prologueItems})`,
    );
  }
  const env = asObject(spec.env);
  // zod rebuilds a record as a plain object, where "__proto__" sets the prototype instead of a
  // key: the variable would silently vanish from the parsed env, so it is refused instead.
  if (env !== undefined && Object.hasOwn(env, '__proto__')) {
    reasons.push('spec.env.__proto__: cannot be carried (JavaScript objects reserve this key), so it would be dropped');
  }
  const entries = env === undefined ? 0 : Object.keys(env).length;
  const withWorkDir = hasWorkDir(spec.workDir);
  const max = withWorkDir ? Limits.envMaxWithWorkDir : Limits.envMax;
  if (entries > max) {
    const added = Limits.trainerListMax - max;
    reasons.push(
      `spec.env: ${entries} entries; at most ${max} are allowed${withWorkDir ? ' with workDir set' : ''} ` +
        `(Trainer allows ${Limits.trainerListMax}, dispatch adds ${added} variables)`,
    );
  }
  return reasons;
}

/** A request that is not a JSON object at all has no fields to name. */
function rootReasons(input: unknown): string[] {
  return asObject(input) === undefined ? [`request: must be an object, not ${typeOfJson(input)}`] : [];
}

/**
 * The refusal for what was found, or undefined when nothing was: ErrInvalid when anything is
 * invalid (unsupported extensions then follow in the same list), else ErrUnsupported.
 */
function refusal(invalid: readonly string[], unsupported: readonly string[]): DispatchError | undefined {
  if (invalid.length > 0) return new DispatchError('ErrInvalid', [...invalid, ...unsupported], VALIDATE_STEP);
  if (unsupported.length > 0) return new DispatchError('ErrUnsupported', [...unsupported], VALIDATE_STEP);
  return undefined;
}

/** Start's checks of a StartRequest: the valid request, or a DispatchError naming every problem. */
export function validate(input: unknown): ValidRequest {
  const root = rootReasons(input);
  if (root.length > 0) throw refusal(root, [])!;
  const parsed = StartRequestSchema.safeParse(input, { reportInput: true });
  const rawSpec = (input as Obj).spec;
  const extensions = readExtensions(rawSpec, 'start');
  const invalid = [
    ...(parsed.success ? [] : issuesToReasons(parsed.error.issues)),
    ...rawSpecReasons(rawSpec),
    ...extensions.invalid,
  ];
  const refused = refusal(invalid, extensions.unsupported);
  if (refused) throw refused;
  // No reason: the parse succeeded and both required extensions were read.
  return { request: parsed.data!, image: extensions.image!, runtime: extensions.runtime! };
}

/** What TrainJobCapabilities needs of its request: the runtime, and ProcsPerNode (0 when unset). */
export interface CapabilitiesQuery {
  runtime: RuntimeName;
  procsPerNode: number;
}

/** TrainJobCapabilities' checks: only kubeflow/RuntimeRef is required; the rest of the spec is Start's. */
export function validateCapabilitiesRequest(input: unknown): CapabilitiesQuery {
  const root = rootReasons(input);
  if (root.length > 0) throw refusal(root, [])!;
  const parsed = CapabilitiesRequestSchema.safeParse(input, { reportInput: true });
  const extensions = readExtensions((input as Obj).spec, 'capabilities');
  const invalid = [...(parsed.success ? [] : issuesToReasons(parsed.error.issues)), ...extensions.invalid];
  const refused = refusal(invalid, []);
  if (refused) throw refused;
  // No reason: the parse succeeded and RuntimeRef was read.
  return { runtime: extensions.runtime!, procsPerNode: parsed.data!.spec.procsPerNode ?? 0 };
}
