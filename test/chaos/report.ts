// The checker's part of a chaos run's report, as lines (the run and recheck.ts print the same):
// cases checked against each invariant's minimum, lifecycles completed or not (each one that did
// not, with what justifies it), the refusals the contract allowed by rule, and the violations.
import type { CheckReport, Violation } from './checker.js';
import { incompleteAllowed, INVARIANTS } from './invariants.js';

export const violationLine = (v: Violation) => `  ${v.invariant}${v.job === undefined ? '' : ` (lifecycle ${v.job})`}: ${v.detail}`;

export function checkLines(report: CheckReport, lifecycles: number): string[] {
  const byRule = new Map<string, { count: number; because: Set<string> }>();
  for (const j of report.justified) {
    const entry = byRule.get(j.rule) ?? { count: 0, because: new Set<string>() };
    entry.count += 1;
    // A fault by its kind ("fault 12: apiserver-restart, down 4.2 s": apiserver-restart); other evidence as it is.
    for (const b of j.because) entry.because.add(/^fault \d+: /.test(b) ? b.replace(/^fault \d+: /, '').replace(/[, ].*$/, '') : b);
    byRule.set(j.rule, entry);
  }
  return [
    `invariants checked (minimum): ${INVARIANTS.map((name) => `${name} ${report.checked[name]} (${report.minimums[name]})`).join(', ')}`,
    `lifecycles: ${report.completed} of ${lifecycles} completed their shape; ${report.incomplete.length} did not (at most ${incompleteAllowed(lifecycles)} may)`,
    ...report.incomplete.map(
      (l) => `  lifecycle ${l.job} (${l.shape}, ${l.mode}): ${l.short.join('; ')}${l.justified.length ? `; justified: ${l.justified.map((j) => `${j.rule} [${j.because.join('; ')}]`).join('; ')}` : ''}`,
    ),
    `refusals the contract allowed: ${report.justified.length}`,
    ...[...byRule].map(([rule, { count, because }]) => `  ${count} x ${rule} (by ${[...because].join(', ')})`),
    report.violations.length === 0 ? 'violations: none' : `violations: ${report.violations.length}`,
    ...report.violations.map(violationLine),
  ];
}
