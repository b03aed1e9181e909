// Several releases may share one Prometheus (docs/contract.md §10): the shipped alerts and dashboard
// must keep them apart. Every aggregation and every match of an alert keeps `namespace` and
// `release` (the labels the chart's ServiceMonitor gives every series), so an alert is about one
// release and a ratio never divides one release's counts by another's; every selector of every
// panel is narrowed to the dashboard's namespace and release variables.
import { describe, expect, it } from 'vitest';
import { dashboardPanelExpressions, dashboardVariables, ruleExpressions, selectors } from '../../support/monitoring.js';
import { aggregations, matchings } from '../../support/promql-grouping.js';

const KEYS = ['namespace', 'release'];

describe('the alerts', () => {
  it('aggregate and match by namespace and release, never across releases', () => {
    const across = ruleExpressions().flatMap(({ where, expr }) => [
      ...aggregations(expr)
        .filter((a) => a.by === undefined || !KEYS.every((k) => a.by!.includes(k)))
        .map((a) => `${where}: ${a.text}`),
      ...matchings(expr)
        .filter((m) => !KEYS.every((k) => m.labels.includes(k)))
        .map((m) => `${where}: ${m.text}`),
    ]);
    expect(across).toEqual([]);
  });
});

describe('the dashboard', () => {
  it('has a namespace variable and a release variable within it, both read from a series every worker exports', () => {
    expect(dashboardVariables()).toEqual([
      { name: 'namespace', selector: 'dispatch_gate_proven', label: 'namespace' },
      { name: 'release', selector: 'dispatch_gate_proven{namespace=~"$namespace"}', label: 'release' },
    ]);
  });

  it('narrows every selector of every panel to the chosen namespace and release', () => {
    const expressions = dashboardPanelExpressions();
    expect(expressions.length).toBeGreaterThan(20);
    const unfiltered = expressions.flatMap(({ where, expr }) =>
      selectors(expr)
        .filter((s) => !s.matchers.includes('namespace=~"$namespace"') || !s.matchers.includes('release=~"$release"'))
        .map((s) => `${where}: ${s.name}{${s.matchers}}`),
    );
    expect(unfiltered).toEqual([]);
  });
});

describe('reading PromQL', () => {
  it('finds aggregations with their by list, bare ones, and not the *_over_time functions', () => {
    expect(aggregations('max by (namespace, release) (max_over_time(x[1d])) unless on (namespace) (sum(y) > 0)')).toEqual([
      { text: 'max by (namespace, release) (', by: ['namespace', 'release'] },
      { text: 'sum(', by: undefined },
    ]);
    expect(aggregations('histogram_quantile(0.99, sum by (le) (rate(a_bucket[5m]))) / count without (pod) (b)')).toEqual([
      { text: 'sum by (le) (', by: ['le'] },
      { text: 'count without (pod) (', by: undefined },
    ]);
  });

  it('finds every on/ignoring list of a binary operation', () => {
    expect(matchings('a / on (operation) group_left b and ignoring (x, y) c')).toEqual([
      { text: 'on (operation)', labels: ['operation'] },
      { text: 'ignoring (x, y)', labels: ['x', 'y'] },
    ]);
  });

  it('finds each selector with its matchers', () => {
    expect(selectors('sum(rate(a_total{x="1", y=~"$y"}[5m])) / b + a_total')).toEqual([
      { name: 'a_total', matchers: 'x="1", y=~"$y"' },
      { name: 'a_total', matchers: '' },
      { name: 'b', matchers: '' },
    ]);
  });
});
