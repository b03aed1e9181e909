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

/**
 * Grafana's variables as Prometheus would get them: the intervals as a fixed range, the dashboard's
 * own (namespace, release) as their "All" (`.*`).
 */
const GRAFANA_VARIABLES: Record<string, string> = { $__rate_interval: '5m', $__interval: '1m', $__range: '1h', $namespace: '.*', $release: '.*' };
const withVariables = (expr: string) => expr.replace(/\$\w+/g, (v) => GRAFANA_VARIABLES[v] ?? v);

interface Panel {
  id: number;
  title: string;
  targets?: { refId: string; expr?: string }[];
  panels?: Panel[];
}

interface Variable {
  name: string;
  type: string;
  query?: string | { query?: string };
}

/** Every panel's expression as written, Grafana's variables left in. */
export function dashboardPanelExpressions(file = DASHBOARD_FILE): Expression[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { panels: Panel[] };
  const panels = doc.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  return panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel ${p.id} "${p.title}" ${t.refId}`, expr: t.expr ?? '' })));
}

/** The dashboard's query variables: `label_values(<selector>, <label>)` each, as written. */
export function dashboardVariables(file = DASHBOARD_FILE): { name: string; selector: string; label: string }[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { templating: { list: Variable[] } };
  return doc.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => {
      const query = typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
      const m = /^label_values\((.+),\s*(\w+)\)$/.exec(query);
      if (!m) throw new Error(`variable ${v.name}: ${query} is not label_values(<selector>, <label>)`);
      return { name: v.name, selector: m[1]!, label: m[2]! };
    });
}

/**
 * What Prometheus is asked for the dashboard: every panel's expression and every variable's
 * selector, with Grafana's variables replaced.
 */
export function dashboardExpressions(file = DASHBOARD_FILE): Expression[] {
  return [
    ...dashboardPanelExpressions(file),
    ...dashboardVariables(file).map((v) => ({ where: `variable ${v.name}`, expr: v.selector })),
  ].map(({ where, expr }) => ({ where, expr: withVariables(expr) }));
}

/** Each metric selector of an expression: the name and what is between its braces (empty without). */
export function selectors(expr: string): { name: string; matchers: string }[] {
  const bare = expr.replace(/"(?:[^"\\]|\\.)*"/g, (s) => s.replace(/[{}]/g, ' '));
  return metricNames(expr).flatMap((name) =>
    [...bare.matchAll(new RegExp(`(?<![\\w:])${name}(?![\\w:])\\s*(\\{([^}]*)\\})?`, 'g'))].map((m) => ({ name, matchers: m[2] ?? '' })),
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

/** The label names of a Prometheus text exposition's samples. */
export function exposedLabels(text: string): Set<string> {
  const labels = new Set<string>();
  for (const line of text.split('\n')) {
    const braces = /^[a-zA-Z_:][\w:]*\{(.*)\}/.exec(line)?.[1];
    for (const m of (braces ?? '').matchAll(/([a-zA-Z_]\w*)="(?:[^"\\]|\\.)*"/g)) labels.add(m[1]!);
  }
  return labels;
}

/** The label names an expression groups by (by, without), matches on (on, ignoring) or selects on (matchers). */
export function labelsUsed(expr: string): string[] {
  const labels = new Set<string>();
  const bare = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const m of bare.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g))
    for (const label of m[1]!.split(',')) if (label.trim()) labels.add(label.trim());
  for (const m of bare.matchAll(/\{([^}]*)\}/g))
    for (const matcher of m[1]!.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)) labels.add(matcher[1]!);
  return [...labels];
}
