// The shipped alerts and Grafana dashboard (deploy/helm/dispatch-kubeflow/files/) against promtool,
// built from the Go module proxy (scripts/build-servers.sh), and against a real worker: every rule
// and the rules' unit tests pass `promtool`; every panel's expression parses; and every metric they
// name is one that `dispatch-kubeflow worker` exports, on --metrics (Core's exporter) or
// --dispatch-metrics (dispatch's), scraped after one of each operation, a refusal and the admission
// check controller's passes, a workflow task that fails, in Kueue mode on the real Kueue. The SDK's
// names are checked as the worker sets Core's exporter: seconds, unit suffixes, `_total` counters;
// and every label an alert or a panel groups, matches or filters by is one the scrape has, or one
// Prometheus adds to it (TARGET_LABELS).
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DispatchKubeflowClient } from '../../../src/client/dispatch-client.js';
import { DispatchError } from '../../../src/model/errors.js';
import type { TrainJobRef } from '../../../src/model/operations.js';
import { applyKueueSamples } from '../../../dev/harness/samples.js';
import { startRequest } from '../../support/requests.js';
import { dashboardExpressions, exposedLabels, exposedNames, labelsUsed, metricNames, RULE_TESTS_FILE, ruleExpressions, RULES_FILE } from '../../support/monitoring.js';
import { freshNamespace, kubeAccess, uniqueName, type TestNamespace } from '../support/kube.js';
import { REAL_KUEUE_CONFIG, until } from '../support/operations.js';
import { temporalEnv } from '../support/temporal.js';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.js';

const run = promisify(execFile);
/**
 * Labels Prometheus gives a scraped series: the Prometheus Operator's `namespace`, `job`, `instance`
 * (and `pod`, `service`, `endpoint`), the chart's ServiceMonitor's `release`, and `exported_namespace`,
 * the SDK's own `namespace` renamed where the target's wins.
 */
const TARGET_LABELS = ['namespace', 'release', 'job', 'instance', 'pod', 'service', 'endpoint', 'exported_namespace'];
const repo = join(import.meta.dirname, '..', '..', '..');

/** promtool's path, as scripts/build-servers.sh prints it (npm test builds it with the servers). */
async function promtool(): Promise<string> {
  const { stdout } = await run('bash', [join(repo, 'scripts', 'build-servers.sh'), '--print']).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const path = /^promtool=(.+)$/m.exec(stdout)?.[1];
  if (!path) throw new Error('promtool is not built: run `bash scripts/build-servers.sh`');
  return path;
}

async function promtoolRun(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(await promtool(), args);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('promtool', () => {
  it('checks the alert rules: 10 rules, no problem', async () => {
    const checked = await promtoolRun(['check', 'rules', RULES_FILE]);
    expect(checked.output).toMatch(/SUCCESS: 10 rules found/);
    expect(checked.code, checked.output).toBe(0);
  });

  it("passes the alerts' unit tests: each fires on what should fire it and on nothing short of it", async () => {
    const tested = await promtoolRun(['test', 'rules', RULE_TESTS_FILE]);
    expect(tested.code, tested.output).toBe(0);
    expect(tested.output).toMatch(/SUCCESS/);
  });

  it("parses every dashboard panel's expression and variable's selector (each as a recording rule)", async () => {
    const expressions = dashboardExpressions();
    const rules = expressions.map(({ expr }, i) => ({ record: `dashboard:expression_${i}`, expr }));
    const file = join(mkdtempSync(join(tmpdir(), 'dk-dashboard-')), 'dashboard-rules.yaml');
    writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules }] }));
    const checked = await promtoolRun(['check', 'rules', file]);
    expect(checked.code, checked.output).toBe(0);
    expect(checked.output).toContain(`SUCCESS: ${expressions.length} rules found`);
  });
});

describe('the metrics they name, on a real worker', () => {
  let ns: TestNamespace;
  let worker: WorkerProcess;
  let env: Awaited<ReturnType<typeof temporalEnv>>;
  let client: DispatchKubeflowClient;
  const scrape = async (url: string) => {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  };
  const scrapeBoth = async () => `${await scrape(worker.metricsUrl)}\n${await scrape(worker.dispatchMetricsUrl)}`;
  const refOf = (started: { namespace: string; name: string; uid: string }): TrainJobRef => ({ namespace: started.namespace, name: started.name, uid: started.uid });
  const typeOf = (error: unknown) => (error instanceof DispatchError ? error.type : error);

  beforeAll(async () => {
    ns = await freshNamespace('monitoring');
    await applyKueueSamples(kubeAccess(), [ns.name]);
    const taskQueue = uniqueName('monitoring');
    worker = await spawnWorker(ns.name, taskQueue, { ...REAL_KUEUE_CONFIG, kueue: { ...REAL_KUEUE_CONFIG.kueue } });
    env = await temporalEnv();
    client = new DispatchKubeflowClient(env.client, { namespace: ns.name, taskQueue });
    await until('the first preflight to prove the start gate', 90_000, async () => (/"preflight finished".*"start":true/.test(worker.output()) ? true : undefined));

    // Start, Open, Watch to Succeeded; then a Hold of the finished TrainJob is refused.
    const done = refOf(await client.startTrainJob(startRequest()));
    await client.open(done);
    await client.watch(done);
    await expect(client.hold(done).catch(typeOf)).resolves.toBe('ErrRejected');
    // A second TrainJob, never opened: Hold, Release, a Watch that waits (counted by Temporal), Stop.
    const stopped = refOf(await client.startTrainJob(startRequest()));
    await client.hold(stopped);
    await client.release(stopped);
    const watching = await client.submitOperation('watch', stopped);
    await until('dispatch_watches_waiting 1', 30_000, async () => (/^dispatch_watches_waiting 1$/m.test(await scrape(worker.dispatchMetricsUrl)) ? true : undefined));
    await client.stop(stopped);
    await watching.result();
    // A Start refused at step 2.
    await expect(client.startTrainJob(startRequest({ runtime: { kind: 'ClusterTrainingRuntime', name: 'no-such-runtime' } })).catch(typeOf)).resolves.toBe('ErrUnsupported');
    // A workflow task that fails (a type this worker does not have, as after a deploy that dropped
    // it), retried by Temporal until the workflow is terminated.
    const failing = await env.client.workflow.start('NoSuchWorkflowType', { taskQueue, workflowId: uniqueName('no-such-type'), args: [] });
    await until('a failed workflow task in the SDK metrics', 60_000, async () =>
      // Either name: the test of the names below says which it must be.
      /^temporal_workflow_task_execution_failed(_total)?\{[^}]*workflow_type="NoSuchWorkflowType"/m.test(await scrape(worker.metricsUrl)) ? true : undefined,
    );
    await failing.terminate('the monitoring test has seen its workflow task fail');
  });

  afterAll(async () => {
    if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await env?.teardown();
    await ns?.dispose();
  });

  it('counts each operation by outcome and error type, times it, and shows the gates, the open workflows and the admission check controller', async () => {
    const text = await scrape(worker.dispatchMetricsUrl);
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    const ops = (operation: string, outcome: string, type = 'none') => value(`dispatch_operations_total{operation="${operation}",outcome="${outcome}",error_type="${type}"}`);
    expect(ops('start', 'success')).toBe(2);
    expect(ops('start', 'failure', 'ErrUnsupported')).toBe(1);
    expect(ops('open', 'success')).toBe(1);
    expect(ops('hold', 'success')).toBe(1);
    expect(ops('hold', 'failure', 'ErrRejected')).toBe(1);
    expect(ops('release', 'success')).toBe(1);
    expect(ops('stop', 'success')).toBe(1);
    expect(ops('watch', 'success')).toBe(2);
    expect(ops('watch', 'failure', 'ErrRejected')).toBe(0);
    expect(value('dispatch_starts_total{outcome="success",error_type="none"}')).toBe(2);
    expect(value('dispatch_operation_duration_seconds_count{operation="watch",outcome="success"}')).toBe(2);
    expect(value('dispatch_operation_duration_seconds_sum{operation="start",outcome="success"}')).toBeGreaterThan(0);
    for (const gate of ['reach', 'write', 'start']) expect(value(`dispatch_gate_proven{gate="${gate}"}`)).toBe(1);
    expect(value('dispatch_watches_waited_longer_than{duration="1h"}')).toBe(0);
    expect(value('dispatch_admission_passes_total{result="complete"}')).toBeGreaterThan(0);
    expect(value('dispatch_admission_writes_total{object="Workload"}')).toBeGreaterThanOrEqual(1); // the opened TrainJob's; the other was never opened
    expect(value('dispatch_admission_errors_total{kind="refused"}')).toBe(0);
  });

  it('counts no Start in flight once all have closed (the visibility count, refreshed every 10 s)', async () => {
    await until('dispatch_starts_in_flight 0', 30_000, async () => (/^dispatch_starts_in_flight 0$/m.test(await scrape(worker.dispatchMetricsUrl)) ? true : undefined));
  });

  it("exports the SDK's durations in seconds, named with their unit, and its counters with _total", async () => {
    const sdk = exposedNames(await scrape(worker.metricsUrl));
    for (const name of [
      'temporal_workflow_task_schedule_to_start_latency_seconds_bucket',
      'temporal_activity_schedule_to_start_latency_seconds_bucket',
      'temporal_workflow_completed_total',
      'temporal_workflow_task_execution_failed_total',
      'temporal_num_pollers',
    ])
      expect(sdk, name).toContain(name);
    // Nothing left in Core's default shape: a bare counter or a latency without its unit.
    expect([...sdk].filter((n) => /_(latency|endtoend_latency)_(bucket|sum|count)$|_(completed|failed|received)$/.test(n))).toEqual([]);
    // Seconds, not milliseconds: the activity schedule-to-start observed in this run is under a minute.
    const text = await scrape(worker.metricsUrl);
    const sum = Number(/^temporal_activity_schedule_to_start_latency_seconds_sum\{[^}]*\} (\S+)$/m.exec(text)?.[1]);
    const count = Number(/^temporal_activity_schedule_to_start_latency_seconds_count\{[^}]*\} (\S+)$/m.exec(text)?.[1]);
    expect(count).toBeGreaterThan(0);
    expect(sum / count).toBeLessThan(60);
  });

  it('exports every metric the alert rules and the dashboard name', async () => {
    const exported = exposedNames(await scrapeBoth());
    const missing = [...ruleExpressions(), ...dashboardExpressions()].flatMap(({ where, expr }) =>
      metricNames(expr)
        .filter((name) => !exported.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('has every label the alert rules and the dashboard group, match or filter by, or Prometheus adds it', async () => {
    const known = new Set([...exposedLabels(await scrapeBoth()), ...TARGET_LABELS]);
    const unknown = [...ruleExpressions(), ...dashboardExpressions()].flatMap(({ where, expr }) =>
      labelsUsed(expr)
        .filter((label) => !known.has(label))
        .map((label) => `${where}: ${label}`),
    );
    expect(unknown).toEqual([]);
  });
});
