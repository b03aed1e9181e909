// npx tsx test/chaos/recheck.ts .dev/chaos/<seed>-<time>: runs the checker again over a chaos run's
// saved record (its calls and its final state), e.g. after the checker gained an invariant, and
// prints the cases checked, the lifecycles completed, the violations and the refusals by rule as the run does. Exits 1 on a violation.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { check } from './checker.js';
import { CLEANUP_BOUND_MS } from './cleanup.js';
import { auditCleanup, mergeAudit, type CleanupState } from './cluster-audit.js';
import type { FinalState, RunHistory } from './history.js';
import { refusalLines, refusalTable } from './refusals.js';
import { checkLines } from './report.js';
import { CHAOS_CALL_MS } from './stack.js';
import { CHAOS_WINDOWS } from './windows.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: tsx test/chaos/recheck.ts <run folder with history.json>');
const { history, final, cleanup } = JSON.parse(readFileSync(join(dir, 'history.json'), 'utf8')) as { history: RunHistory; final: FinalState; cleanup?: CleanupState };
const judge = { callBoundMs: CHAOS_CALL_MS, windows: CHAOS_WINDOWS, ...(history.multiKueue ?? {}) };
const report = check(history, final, judge);
// A MultiKueue run's leak audit, over the last read of its cleanup.
if (cleanup) mergeAudit(report, auditCleanup(history.lifecycles, cleanup, { probeBoundMs: CHAOS_WINDOWS.probeBoundMs, boundMs: CLEANUP_BOUND_MS }), history.lifecycles.length);
console.log(`seed ${history.seed}: ${history.lifecycles.length} lifecycles, ${history.calls.length} calls`);
for (const line of [...checkLines(report, history.lifecycles.length), ...refusalLines(refusalTable(history, report, judge))]) console.log(line);
process.exit(report.violations.length === 0 ? 0 : 1);
