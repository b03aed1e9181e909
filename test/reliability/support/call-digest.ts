// A short account of the Kubernetes calls a worker logged as refused or unanswered, for the message of
// a reliability test that failed: when a run on another machine fails, its output is all there is.
import { readFileSync } from 'node:fs';

interface LoggedCall {
  at: string;
  step: string;
  outcome: string;
  what: string;
}

const HEAD = /^(\S+Z) \[\w+\] Kubernetes call (refused|unanswered) \{$/;
const FIELD = /^ {2}(step|detail|status|reason): (.*?),?$/;

/** The refused and unanswered calls in a worker log, in order. */
export function loggedFailedCalls(log: string): LoggedCall[] {
  const calls: LoggedCall[] = [];
  let current: { at: string; outcome: string; fields: Record<string, string> } | undefined;
  for (const line of log.split('\n')) {
    const head = HEAD.exec(line);
    if (head) {
      current = { at: head[1]!, outcome: head[2]!, fields: {} };
      continue;
    }
    if (!current) continue;
    const field = FIELD.exec(line);
    if (field) current.fields[field[1]!] = field[2]!.replace(/^'|'$/g, '');
    if (line === '}') {
      const { step = '?', detail, status, reason } = current.fields;
      calls.push({ at: current.at, step, outcome: current.outcome, what: detail ?? `${status ?? ''} ${reason ?? ''}`.trim() });
      current = undefined;
    }
  }
  return calls;
}

/**
 * The failed calls as lines, a run of the same step, outcome and answer folded into one line with
 * its count and its first and last time; at most `limit` lines, the latest kept.
 */
export function failedCallDigest(logFile: string, limit = 40): string {
  let log: string;
  try {
    log = readFileSync(logFile, 'utf8');
  } catch (error) {
    return `(no worker log at ${logFile}: ${String(error)})`;
  }
  const lines: { first: string; last: string; count: number; key: string }[] = [];
  for (const call of loggedFailedCalls(log)) {
    const key = `step ${call.step} ${call.outcome}: ${call.what}`;
    const previous = lines.at(-1);
    if (previous?.key === key) {
      previous.last = call.at;
      previous.count += 1;
    } else lines.push({ first: call.at, last: call.at, count: 1, key });
  }
  if (lines.length === 0) return '(the worker logged no refused or unanswered call)';
  const shown = lines.slice(-limit).map((l) => (l.count === 1 ? `${l.first} ${l.key}` : `${l.first}..${l.last} x${l.count} ${l.key}`));
  return (lines.length > limit ? [`(${lines.length - limit} earlier lines left out)`] : []).concat(shown).join('\n');
}
