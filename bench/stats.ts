// Percentiles and the printed table.

/** The p-th percentile (0-100) by nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export interface Spread {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

export function spread(samples: readonly number[]): Spread {
  const mean = samples.reduce((a, b) => a + b, 0) / (samples.length || 1);
  return {
    n: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    mean,
  };
}

export const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : 'n/a');
export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
export const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

export interface Row {
  section: string;
  metric: string;
  value: string;
  /** The target, when it sets one. */
  target?: string;
  /** Whether the target is met; absent when there is none. */
  met?: boolean;
}

/** A Markdown table, so that the printed output pastes into docs/performance.md as it is. */
export function table(rows: readonly Row[]): string {
  const cells = rows.map((r) => [
    r.section,
    r.metric,
    r.value,
    r.target ?? '',
    r.met === undefined ? '' : r.met ? 'met' : 'NOT met',
  ]);
  const header = ['section', 'metric', 'value', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

/** Median, p90 and the worst: the spread of a few dozen samples, where p99 would be the max. */
export interface Tail {
  n: number;
  p50: number;
  p90: number;
  max: number;
}

export const tail = (samples: readonly number[]): Tail => ({
  n: samples.length,
  p50: percentile(samples, 50),
  p90: percentile(samples, 90),
  max: percentile(samples, 100),
});

export const describeTail = (t: Tail, unit: (value: number) => string = ms) =>
  `median ${unit(t.p50)}, p90 ${unit(t.p90)}, max ${unit(t.max)} (n=${t.n})`;
