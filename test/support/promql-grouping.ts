// How a PromQL expression groups and matches series: its aggregations (with their `by` list) and
// the `on`/`ignoring` lists of its binary operations. Enough for the shipped rules and dashboard,
// which write `sum by (...) (x)`, never `sum(x) by (...)`.

const AGGREGATIONS = 'sum|min|max|avg|count|group|stddev|stdvar|topk|bottomk|quantile|count_values|limitk|limit_ratio';

/** Each aggregation: its text up to its opening parenthesis, and its `by` labels (undefined when bare or `without`). */
export function aggregations(expr: string): { text: string; by: string[] | undefined }[] {
  const found = expr.matchAll(new RegExp(`(?<![\\w:])(?:${AGGREGATIONS})\\s*(?:(by|without)\\s*\\(([^)]*)\\)\\s*)?\\(`, 'g'));
  return [...found].map((m) => ({ text: m[0], by: m[1] === 'by' ? labelList(m[2]!) : undefined }));
}

/** Each `on (...)` or `ignoring (...)` of a binary operation, with its labels. */
export function matchings(expr: string): { text: string; labels: string[] }[] {
  return [...expr.matchAll(/(?<![\w:])(?:on|ignoring)\s*\(([^)]*)\)/g)].map((m) => ({ text: m[0], labels: labelList(m[1]!) }));
}

const labelList = (text: string) =>
  text
    .split(',')
    .map((l) => l.trim())
    .filter(Boolean);
