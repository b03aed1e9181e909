// What the monitoring tests read of the shipped alert rules and Grafana dashboard: every PromQL
// expression, with Grafana's variables replaced by what Prometheus accepts, and the metric names an
// expression selects.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const repo = join(import.meta.dirname, '..', '..');
export const RULES_FILE = join(repo, 'deploy', 'helm', 'dispatch-kubeflow', 'files', 'prometheus-rules.yaml');
export const DASHBOARD_FILE = join(repo, 'deploy', 'helm', 'dispatch-kubeflow', 'files', 'grafana-dashboard.json');
export const RULE_TESTS_FILE = join(repo, 'test', 'monitoring', 'prometheus-rules.test.yaml');

export interface Expression {
  /** Where it is: `alert DispatchGateUnproven`, `panel 3 "Refusals by type" A`. */
  where: string;
  expr: string;
}

export function ruleExpressions(file = RULES_FILE): Expression[] {
  const doc = parse(readFileSync(file, 'utf8')) as { groups: { rules: { alert?: string; record?: string; expr: string }[] }[] };
  return doc.groups.flatMap((g) => g.rules.map((r) => ({ where: r.alert ? `alert ${r.alert}` : `record ${r.record}`, expr: r.expr })));
}

/** Grafana's interval variables, as a fixed range Prometheus parses. */
const GRAFANA_VARIABLES: Record<string, string> = { $__rate_interval: '5m', $__interval: '1m', $__range: '1h' };

interface Panel {
  id: number;
  title: string;
  targets?: { refId: string; expr?: string }[];
  panels?: Panel[];
}

export function dashboardExpressions(file = DASHBOARD_FILE): Expression[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { panels: Panel[] };
  const panels = doc.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  return panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({
      where: `panel ${p.id} "${p.title}" ${t.refId}`,
      expr: (t.expr ?? '').replace(/\$__\w+/g, (v) => GRAFANA_VARIABLES[v] ?? v),
    })),
  );
}

const NOT_METRICS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'start', 'end']);

/**
 * The metric names a PromQL expression selects: identifiers that are not functions (followed by
 * "("), keywords, label names (inside {} or a by/on/... list), numbers or durations. Strings and
 * ranges are dropped first; `{__name__="x"}` is not understood (and not used).
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/(\d[\w.]*)|([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const name = m[2];
    if (name && !m[3] && !NOT_METRICS.has(name.toLowerCase())) names.add(name);
  }
  return [...names];
}

/** The sample names of a Prometheus text exposition (a histogram's `_bucket`, `_sum`, `_count` each). */
export function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)[{ ]/.exec(line);
    if (m) names.add(m[1]!);
  }
  return names;
}
