// Reads the configuration file (YAML or JSON; docs/contract.md §5) and validates it, naming every
// error.
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { ConfigSchema, type Config } from '../model/config.js';
import { issuesToReasons } from '../model/issues.js';

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly reasons: string[],
  ) {
    super(`configuration ${file} is not valid: ${reasons.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses YAML (a superset of JSON) into a plain value; a syntax error names the file and line. */
export async function readDocument(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot read ${file}: ${error.code ?? error.message}`);
  });
  return parseDocument(text, file);
}

/** Parses a document read from `source` (a file's name, or "stdin"), as readDocument does. */
export function parseDocument(text: string, source: string): unknown {
  try {
    return parseYaml(text, { prettyErrors: true });
  } catch (error) {
    throw new Error(`${source} is not valid YAML or JSON: ${syntaxProblem(error as Error)}`, { cause: error });
  }
}

/**
 * The first line of a YAML syntax error, "<problem> at line L, column C", without the colon that
 * introduces the source excerpt; the library's advice on a second document is meant for
 * programmers, so it is said in a user's words.
 */
function syntaxProblem(error: Error & { code?: string; linePos?: { line: number; col: number }[] }): string {
  const first = error.message.split('\n')[0]!.replace(/:$/, '');
  if (error.code !== 'MULTIPLE_DOCS') return first;
  const at = error.linePos?.[0];
  return `it holds more than one document (one object per file)${at ? ` at line ${at.line}, column ${at.col}` : ''}`;
}

export function parseConfig(value: unknown, file = '(inline)'): Config {
  const parsed = ConfigSchema.safeParse(value ?? {});
  if (!parsed.success) throw new ConfigError(file, issuesToReasons(parsed.error.issues));
  return parsed.data;
}

export async function loadConfig(file: string): Promise<Config> {
  return parseConfig(await readDocument(file), file);
}
