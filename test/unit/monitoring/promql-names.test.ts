// The metric names the monitoring test checks against a real scrape: if this reading missed a name,
// a dashboard or an alert could name a metric that does not exist and the check would still pass.
import { describe, expect, it } from 'vitest';
import { dashboardExpressions, exposedLabels, exposedNames, labelsUsed, metricNames, ruleExpressions } from '../../support/monitoring.js';

describe('metricNames', () => {
  it.each([
    ['dispatch_gate_proven == 0', ['dispatch_gate_proven']],
    ['sum by (operation, error_type) (rate(dispatch_operations_total{outcome="failure", error_type=~"Err.*"}[15m]))', ['dispatch_operations_total']],
    ['a / on (operation) group_left (x) b > 0.25 and on (operation) c >= 10', ['a', 'b', 'c']],
    ['histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m] offset 1h)))', ['x_bucket']],
    ['x unless on (job, instance) y:recorded', ['x', 'y:recorded']],
    ['label_replace(up, "to", "$1", "from", "(.*)") * 1e3', ['up']],
    ['max(foo) bool > 2', ['foo']],
  ])('%s', (expr, names) => {
    expect(metricNames(expr).sort()).toEqual([...names].sort());
  });
});

describe('the shipped rules and dashboard', () => {
  it('every expression selects at least one metric, and none is left a Grafana variable', () => {
    const all = [...ruleExpressions(), ...dashboardExpressions()];
    expect(ruleExpressions()).toHaveLength(10);
    expect(dashboardExpressions().length).toBeGreaterThan(15);
    for (const { where, expr } of all) {
      expect(metricNames(expr), where).not.toEqual([]);
      expect(expr, where).not.toContain('$');
    }
  });
});

describe('exposedNames', () => {
  it('reads sample names, not comments', () => {
    const text = '# HELP x_total a\n# TYPE x_total counter\nx_total{a="b"} 1\ny 2\nh_bucket{le="+Inf"} 3\n';
    expect([...exposedNames(text)].sort()).toEqual(['h_bucket', 'x_total', 'y']);
  });
});

describe('labelsUsed and exposedLabels', () => {
  it('reads the labels an expression groups, matches and selects by, not label values or metric names', () => {
    const expr = 'sum by (namespace, release) (rate(a_total{outcome="fail{ed}", step=~"x"}[5m])) / on (release) group_left (pod) b unless ignoring (le) c without (kind) (d)';
    expect(labelsUsed(expr).sort()).toEqual(['kind', 'le', 'namespace', 'outcome', 'pod', 'release', 'step']);
  });

  it('reads the label names of samples, not of comments', () => {
    const text = '# HELP x a{b="c"}\nx_total{a="1",b="q\\"uote"} 1\ny 2\nh_bucket{le="+Inf"} 3\n';
    expect([...exposedLabels(text)].sort()).toEqual(['a', 'b', 'le']);
  });
});
