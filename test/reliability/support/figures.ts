// The measured figures of the reliability suite: each printed as one `[reliability] {json}` line
// and, when a run's log folder is known, appended to <logs>/reliability-figures.jsonl, from which
// docs/reliability.md's table is written.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

export function recordFigure(what: string, values: Record<string, unknown>, logDir?: string): void {
  const line = JSON.stringify({ what, ...values, at: new Date().toISOString() });
  console.log(`[reliability] ${line}`);
  if (logDir) appendFileSync(join(logDir, 'reliability-figures.jsonl'), `${line}\n`);
}
