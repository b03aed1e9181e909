// Reading docker-compose.yml as Compose does, without a Docker engine: the file, its variable
// references (`${NAME}`, `${NAME:-default}`, `$NAME`, `$$` for a literal `$`), interpolation with
// the defaults, and .env.example's documented variables.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO } from './manifests.js';

export const COMPOSE_FILE = join(REPO, 'docker-compose.yml');
export const ENV_EXAMPLE = join(REPO, '.env.example');

export interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  volumes?: (string | { type?: string; source?: string; target?: string; read_only?: boolean })[];
  configs?: (string | { source: string; target?: string })[];
  env_file?: string | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  ports?: (string | number | { target?: number; published?: string | number })[];
  restart?: string;
  user?: string;
  read_only?: boolean;
  [field: string]: unknown;
}

export interface ComposeFile {
  services: Record<string, Service>;
  configs?: Record<string, { file?: string; content?: string }>;
  secrets?: Record<string, { file?: string }>;
  [field: string]: unknown;
}

export function readCompose(): ComposeFile {
  return parse(readFileSync(COMPOSE_FILE, 'utf8')) as ComposeFile;
}

export interface VariableRef {
  name: string;
  /** `:-` and `-` give a default, `:?` and `?` make it required, `:+` and `+` an alternative. */
  operator?: ':-' | '-' | ':?' | '?' | ':+' | '+';
  operand?: string;
}

const REFERENCE = /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** The variables a string refers to; `$$` is an escaped `$`, not a reference. */
export function variablesIn(text: string): VariableRef[] {
  return [...text.matchAll(REFERENCE)].flatMap((m): VariableRef[] => {
    if (m[1]) return [];
    if (m[5]) return [{ name: m[5] }];
    return [
      { name: m[2]!, ...(m[3] ? { operator: m[3] as VariableRef['operator'], operand: m[4] ?? '' } : {}) },
    ];
  });
}

/** The string as Compose sees it with `env` set (unset variables take their defaults). */
export function interpolate(text: string, env: Record<string, string> = {}): string {
  return text.replace(
    REFERENCE,
    (_all, dollar: string, name: string, operator: string, operand: string, bare: string) => {
      if (dollar) return '$';
      const key = name ?? bare;
      const value = env[key];
      switch (operator) {
        case ':-':
          return value ? value : operand;
        case '-':
          return value ?? operand;
        case ':+':
          return value ? operand : '';
        case '+':
          return value !== undefined ? operand : '';
        case ':?':
        case '?':
          if (value === undefined || (operator === ':?' && value === ''))
            throw new Error(`${key} is required: ${operand}`);
          return value;
        default:
          return value ?? '';
      }
    },
  );
}

/** Every string in a parsed document, keys included, with its path (for messages). */
export function* stringsOf(value: unknown, path = ''): Generator<{ path: string; text: string }> {
  if (typeof value === 'string') yield { path, text: value };
  else if (Array.isArray(value))
    for (const [i, item] of value.entries()) yield* stringsOf(item, `${path}[${i}]`);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      yield { path: `${path}.${key}`, text: key };
      yield* stringsOf(item, `${path}.${key}`);
    }
  }
}

/** A parsed document with every string interpolated. */
export function interpolateAll<T>(value: T, env: Record<string, string> = {}): T {
  if (typeof value === 'string') return interpolate(value, env) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => interpolateAll(item, env)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [interpolate(key, env), interpolateAll(item, env)]),
    ) as T;
  }
  return value;
}

/** .env.example's variables and their values (`NAME=value` lines; comments and blank lines skipped). */
export function readEnvExample(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [i, line] of readFileSync(ENV_EXAMPLE, 'utf8').split('\n').entries()) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) throw new Error(`.env.example line ${i + 1} is not NAME=value: ${line}`);
    entries.set(m[1]!, m[2]!);
  }
  return entries;
}

/** The value of a service's environment variable, from either form of `environment`. */
export function environmentOf(service: Service, name: string): string | undefined {
  const env = service.environment;
  if (Array.isArray(env)) {
    const entry = env.find((e) => e === name || e.startsWith(`${name}=`));
    return entry?.includes('=') ? entry.slice(name.length + 1) : undefined;
  }
  const value = env?.[name];
  return value === undefined || value === null ? undefined : String(value);
}

/** The bind mounts of a service, in either syntax: host source and container target. */
export function bindMounts(service: Service): { source: string; target: string; readOnly: boolean }[] {
  return (service.volumes ?? []).flatMap((volume) => {
    if (typeof volume === 'string') {
      const [source = '', target = '', mode = ''] = volume.split(':');
      const isPath = /^[./~]/.test(source);
      return isPath ? [{ source, target, readOnly: mode.split(',').includes('ro') }] : [];
    }
    return volume.type === 'bind'
      ? [{ source: volume.source ?? '', target: volume.target ?? '', readOnly: volume.read_only === true }]
      : [];
  });
}
