// Turns zod issues into the reasons a caller reads: "<path>: <message>", one per problem.
import type { z } from 'zod';

// A key that reads unambiguously after a dot; "/" is allowed for extension keys ("dispatch/Image").
const PLAIN_KEY = /^[^\s.[\]"\\\p{C}]+$/u;

/**
 * "spec.env.FOO", "spec.command[2]", "spec.extensions.dispatch/Image": the path of a field as a
 * caller writes it. A key that is empty or holds a dot, bracket, quote, space or control
 * character is written quoted, `env["a.b"]`, so that the path stays readable.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (!PLAIN_KEY.test(String(key))) out += `[${JSON.stringify(String(key))}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** "<path>: <text>"; a problem with the whole value has no path, and the caller names the value. */
function at(path: readonly PropertyKey[], text: string): string {
  return path.length === 0 ? text : `${formatPath(path)}: ${text}`;
}

function describeIssue(issue: z.core.$ZodIssue): string[] {
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => at([...issue.path, key], 'unknown field'));
    case 'invalid_type': {
      const received = receivedOf(issue);
      if (received === 'undefined') return [at(issue.path, 'is required')];
      if (received !== undefined && issue.message.startsWith('Invalid input')) {
        return [at(issue.path, `must be ${article(EXPECTED_NAMES[issue.expected] ?? issue.expected)}, not ${received}`)];
      }
      return [at(issue.path, issue.message)];
    }
    case 'invalid_value':
      // A missing enum field is an invalid value; only a parse with reportInput can tell.
      if ('input' in issue && issue.input === undefined) return [at(issue.path, 'is required')];
      return [at(issue.path, `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`)];
    default:
      return [at(issue.path, issue.message)];
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

// zod's names for a few expected types, as a JSON caller would say them.
const EXPECTED_NAMES: Record<string, string> = { record: 'object', int: 'integer' };

/** "null", "an array", "a string", ...: what a JSON value is, for "must be X, not Y". */
export function typeOfJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return article(typeof value);
}

/**
 * What a wrong-typed field held: 'undefined' when it is missing, a description otherwise, or
 * undefined when the issue does not say. zod keeps the input only when parsed with
 * `{ reportInput: true }`; otherwise its default message ends "received <type>", and a custom
 * message says neither (so a missing field with a custom type message keeps that message).
 */
function receivedOf(issue: z.core.$ZodIssueInvalidType): string | undefined {
  if ('input' in issue) return typeOfJson(issue.input);
  const named = /received (\w+)$/.exec(issue.message)?.[1];
  if (named === undefined || named === 'undefined' || named === 'null') return named;
  return named === 'array' ? 'an array' : article(named);
}

/** Every problem of a failed parse, as reasons, in the order zod found them. */
export function issuesToReasons(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => describeIssue({ ...issue, path: [...prefix, ...issue.path] } as z.core.$ZodIssue));
}
