// Turns zod issues into the reasons a caller reads: "<path>: <message>", one per problem.
import type { z } from 'zod';

/** "spec.env.FOO", "spec.command[2]": the path of a field as a caller writes it. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string[] {
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => `${formatPath([...issue.path, key])}: unknown field`);
    case 'invalid_type':
      if (issue.input === undefined) return [`${formatPath(issue.path)}: is required`];
      if (issue.message.startsWith('Invalid input')) {
        return [`${formatPath(issue.path)}: must be ${article(issue.expected)}, not ${typeOfJson(issue.input)}`];
      }
      return [`${formatPath(issue.path)}: ${issue.message}`];
    case 'invalid_value':
      return [`${formatPath(issue.path)}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`];
    default:
      return [`${formatPath(issue.path)}: ${issue.message}`];
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function typeOfJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return article(typeof value);
}

/** Every problem of a failed parse, as reasons, in the order zod found them. */
export function issuesToReasons(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => describeIssue({ ...issue, path: [...prefix, ...issue.path] } as z.core.$ZodIssue));
}
