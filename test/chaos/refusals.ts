// The refusals of a chaos run by rule (pure): how many each rule of justify.ts accepted, how much of
// the run's time its window covered (a refusal sent outside every window of its rule is a violation,
// so a window that covers the whole run proves nothing), the latest a refusal came after its fault's
// part was back (the measurement beside the window), and the step-1 refusals that follow a fault:
// the longest run of them and how many ErrUnreachable at step 1 there were among all calls.
import type { CheckReport } from './checker.js';
import type { CallRecord, FaultRecord, RunHistory } from './history.js';
import { describe, FAULT_RULES, HOLD_OF_FINISHED, HOLD_OF_FINISHED_ID, reaches, workersStart, type JudgeOptions } from './justify.js';
import type { Mode } from './schedule.js';

const MODES: readonly Mode[] = ['plain', 'kueue'];

export interface RefusalRow {
  id: string;
  rule: string;
  /** The window in words, and its length per mode (none: the rule needs evidence, not a fault). */
  window: string;
  windowMs?: Record<Mode, number>;
  /** Refusals the rule accepted. */
  count: number;
  /** The share of the run's time inside the rule's windows, per mode. */
  covered?: Record<Mode, number>;
  /** The latest a refusal it accepted was sent after its fault's part was back. */
  latestLagMs?: number;
}

export interface Step1Run {
  mode: Mode;
  /** Start tries refused at step 1 in a row (no Start of the mode got past step 1 between them). */
  count: number;
  from: number;
  to: number;
  /** The latest fault applied before the run began, and how long after its part was back the run ended. */
  after?: string;
  endedAfterRecoveryMs?: number;
}

export interface RefusalTable {
  runMs: number;
  rows: RefusalRow[];
  /** Refusals no rule accepted (each is an answers-justified violation). */
  unjustified: number;
  longestStep1Run?: Step1Run;
  step1Unreachable: { count: number; calls: number };
}

/** The time the run's lifecycles ran: recorded, or from the first call to the last answer. */
export function runSpan(history: RunHistory): { from: number; to: number } {
  if (history.ran) return history.ran;
  const calls = history.calls;
  if (calls.length === 0) return { from: 0, to: 0 };
  return { from: Math.min(...calls.map((c) => c.invokedAt)), to: Math.max(...calls.map((c) => c.answeredAt)) };
}

/** The share of [from, to] inside the union of `intervals`. */
export function coverage(intervals: readonly [number, number][], span: { from: number; to: number }): number {
  const length = span.to - span.from;
  if (length <= 0) return 0;
  const clipped = intervals
    .map(([a, b]) => [Math.max(a, span.from), Math.min(b, span.to)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let covered = 0;
  let end = -Infinity;
  for (const [a, b] of clipped) {
    if (b <= end) continue;
    covered += b - Math.max(a, end);
    end = b;
  }
  return covered / length;
}

const isStep1Refusal = (c: CallRecord) => !c.answer.ok && c.answer.step === 1;

/** The longest run of step-1 refusals of one mode's Starts, and the fault it followed. */
export function longestStep1Run(history: RunHistory, faults: readonly FaultRecord[]): Step1Run | undefined {
  const modeOf = new Map(history.lifecycles.map((l) => [l.plan.index, l.plan.mode]));
  let longest: Step1Run | undefined;
  for (const mode of MODES) {
    const starts = history.calls.filter((c) => c.op === 'start' && modeOf.get(c.job) === mode).sort((a, b) => a.invokedAt - b.invokedAt);
    let run: Step1Run | undefined;
    const close = () => {
      if (run && (!longest || run.to - run.from > longest.to - longest.from)) longest = run;
      run = undefined;
    };
    for (const c of starts) {
      if (!isStep1Refusal(c)) {
        close();
        continue;
      }
      run = run ? { ...run, count: run.count + 1, to: Math.max(run.to, c.answeredAt) } : { mode, count: 1, from: c.invokedAt, to: c.answeredAt };
    }
    close();
  }
  if (!longest) return undefined;
  const run: Step1Run = longest;
  const before = faults.filter((f) => f.from <= run.from && reaches(f, run.mode)).sort((a, b) => b.from - a.from)[0];
  return before ? { ...run, after: describe(before), endedAfterRecoveryMs: run.to - before.to } : run;
}

export function refusalTable(history: RunHistory, report: CheckReport, options: JudgeOptions): RefusalTable {
  const span = runSpan(history);
  const faults = [...(history.faults ?? []), ...(history.workersStarted ? [workersStart(history.workersStarted)] : [])];
  const accepted = (id: string) => report.justified.filter((j) => j.id === id);
  const latest = (id: string) => {
    const lags = accepted(id).flatMap((j) => (j.lagMs === undefined ? [] : [j.lagMs]));
    return lags.length > 0 ? Math.max(...lags) : undefined;
  };
  const rows: RefusalRow[] = FAULT_RULES.map((rule) => {
    const windowMs = Object.fromEntries(MODES.map((m) => [m, rule.windowMs(options, m)])) as Record<Mode, number>;
    const covered = Object.fromEntries(
      MODES.map((m) => [m, coverage(faults.filter((f) => rule.kinds.includes(f.kind) && f.hits !== 0 && reaches(f, m)).map((f) => [f.from, f.to + windowMs[m]] as [number, number]), span)]),
    ) as Record<Mode, number>;
    const lag = latest(rule.id);
    return { id: rule.id, rule: rule.rule, window: rule.window, windowMs, count: accepted(rule.id).length, covered, ...(lag === undefined ? {} : { latestLagMs: lag }) };
  });
  rows.push({ id: HOLD_OF_FINISHED_ID, rule: HOLD_OF_FINISHED, window: "the record's evidence that the job had finished", count: accepted(HOLD_OF_FINISHED_ID).length });
  const refusals = history.calls.filter((c) => c.op !== 'find' && !c.answer.ok).length;
  const run = longestStep1Run(history, faults);
  return {
    runMs: span.to - span.from,
    rows,
    unjustified: refusals - report.justified.length,
    ...(run ? { longestStep1Run: run } : {}),
    step1Unreachable: { count: history.calls.filter((c) => c.op === 'start' && !c.answer.ok && c.answer.type === 'ErrUnreachable' && c.answer.step === 1).length, calls: history.calls.length },
  };
}

/** One preflight probe of the run: a ProbeBackend workflow of a mode's task queue, started to closed. */
export interface ProbeRun {
  mode: Mode;
  from: number;
  to: number;
}

export interface ProbeFigures {
  count: number;
  p50Ms: number;
  maxMs: number;
  /**
   * The longest a probe ran after the last fault that overlapped it was back (its whole duration
   * when none did): what the windows' probe term stands for, a probe that rides a fault out.
   */
  maxAfterRecoveryMs: number;
  /** The windows' probe term for the mode. */
  windowMs: number;
}

/** The probes' durations per mode, and how long each ran on after the faults it rode out: the measurement behind windows.ts's probeMs. */
export function probeFigures(probes: readonly ProbeRun[], faults: readonly FaultRecord[], options: JudgeOptions): Partial<Record<Mode, ProbeFigures>> {
  const figures: Partial<Record<Mode, ProbeFigures>> = {};
  for (const mode of MODES) {
    const mine = probes.filter((p) => p.mode === mode);
    if (mine.length === 0) continue;
    const took = mine.map((p) => p.to - p.from).sort((a, b) => a - b);
    const after = mine.map((p) => {
      const backs = faults.filter((f) => f.hits !== 0 && reaches(f, mode) && f.from <= p.to && f.to >= p.from).map((f) => f.to);
      return p.to - Math.min(p.to, Math.max(p.from, ...backs));
    });
    figures[mode] = { count: mine.length, p50Ms: took[Math.floor(took.length / 2)]!, maxMs: took[took.length - 1]!, maxAfterRecoveryMs: Math.max(...after), windowMs: options.windows.probeMs[mode] };
  }
  return figures;
}

/** The probes' line of the report. */
export function probeLine(figures: Partial<Record<Mode, ProbeFigures>>): string {
  const each = Object.entries(figures).map(
    ([mode, p]) => `${mode} ${p.count} (p50 ${seconds(p.p50Ms)}, max ${seconds(p.maxMs)}; after the last fault it rode out was back at most ${seconds(p.maxAfterRecoveryMs)}, the windows assume ${seconds(p.windowMs)})`,
  );
  return `preflight probes completed: ${each.join(', ') || 'none'}`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

/** The table as the run prints it. */
export function refusalLines(table: RefusalTable): string[] {
  const head = ['rule', 'count', 'window plain / kueue', 'covered plain / kueue', 'latest after recovery'];
  const body = table.rows.map((r) => [
    r.id,
    String(r.count),
    r.windowMs ? `${seconds(r.windowMs.plain)} / ${seconds(r.windowMs.kueue)}` : 'evidence',
    r.covered ? `${percent(r.covered.plain)} / ${percent(r.covered.kueue)}` : '-',
    r.latestLagMs === undefined ? '-' : seconds(r.latestLagMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `  ${cells.map((c, i) => (i === 1 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')}`.trimEnd();
  const run = table.longestStep1Run;
  return [
    `refusals by rule, over the run's ${seconds(table.runMs)} (covered: the share of that time inside the rule's windows, in which a refusal of its kind passes; latest: the latest one came after its fault's part was back):`,
    line(head),
    ...body.map(line),
    `  unjustified (violations of answers-justified): ${table.unjustified}`,
    run
      ? `longest run of step-1 refusals: ${run.count} Start ${run.count === 1 ? 'try' : 'tries'} (${run.mode}) over ${seconds(run.to - run.from)}${run.after ? `, ending ${seconds(run.endedAfterRecoveryMs!)} after ${run.after} was back` : ', before any fault'}`
      : 'longest run of step-1 refusals: none',
    `step-1 ErrUnreachable: ${table.step1Unreachable.count} of ${table.step1Unreachable.calls} calls`,
  ];
}
