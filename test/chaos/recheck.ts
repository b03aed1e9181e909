// npx tsx test/chaos/recheck.ts .dev/chaos/<seed>-<time>: runs the checker again over a chaos run's
// saved record (its calls and its final state), e.g. after the checker gained an invariant, and
// prints the cases checked and the violations as the run does. Exits 1 on a violation.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { check } from './checker.js';
import type { FinalState, RunHistory } from './history.js';
import { CHAOS_CALL_MS } from './stack.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: tsx test/chaos/recheck.ts <run folder with history.json>');
const { history, final } = JSON.parse(readFileSync(join(dir, 'history.json'), 'utf8')) as { history: RunHistory; final: FinalState };
const report = check(history, final, { callBoundMs: CHAOS_CALL_MS });
console.log(`seed ${history.seed}: ${history.lifecycles.length} lifecycles, ${history.calls.length} calls`);
console.log(`invariants checked: ${Object.entries(report.checked).map(([k, v]) => `${k} ${v}`).join(', ')}`);
console.log(report.violations.length === 0 ? 'violations: none' : `violations: ${report.violations.length}`);
for (const v of report.violations) console.log(`  ${v.invariant}${v.job === undefined ? '' : ` (lifecycle ${v.job})`}: ${v.detail}`);
process.exit(report.violations.length === 0 ? 0 : 1);
