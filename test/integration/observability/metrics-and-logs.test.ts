// Observability of a worker on the real servers: after a successful Start, a refusal and a Start
// whose failure is compensated, dispatch's /metrics counts each by outcome and error type, times
// each step's activities, counts the compensation; and every activity log line is JSON carrying the
// Start's workflow id, run id and activity type, with one line per Kubernetes call.
import { Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonLogger } from '../../../src/observability/json-logger.js';
import type { ListeningServer } from '../../../src/observability/listen.js';
import { serveMetrics } from '../../../src/observability/metrics-server.js';
import { installRuntime } from '../../../src/observability/runtime.js';
import { DispatchError } from '../../../src/model/errors.js';
import { startRequest } from '../../support/requests.js';
import { applyKueueSamples, KUEUE_SAMPLE_QUEUE } from '../../../dev/harness/samples.js';
import { deleteLocalQueue, kubeAccess } from '../support/kube.js';
import { dispatchSuite } from '../support/suite.js';

// The Runtime is per process and must be installed before the harness connects: this file's own.
const lines: string[] = [];
installRuntime({ logger: new JsonLogger('DEBUG', (line) => lines.push(line)) });

const suite = dispatchSuite('observe', {
  config: {
    mode: 'kueue',
    kueue: { queue: 'user-queue', admissionCheck: 'dispatch' },
    timeouts: { workload: '2s', call: '5s' },
  },
});
let metrics: ListeningServer;

beforeAll(async () => {
  await applyKueueSamples(kubeAccess(), [suite.ns.name]);
  metrics = await serveMetrics('127.0.0.1:0', suite.h.worker.metrics.registry);
});
afterAll(async () => {
  await metrics?.close();
});

/** One sample of the Prometheus text format: `name{a="x",b="y"} value`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (
      Object.entries(labels).every(([k, v]) => found[k] === v) &&
      Object.keys(found).length === Object.keys(labels).length
    )
      return Number(match[3]);
  }
  return undefined;
}

const scrape = async () => {
  const response = await fetch(`${metrics.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
};

/** The log so far: the Runtime holds lines back 100 ms to order them, when Core's are forwarded. */
const logged = () => {
  Runtime.instance().flushLogs();
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
};

const refusal = (error: unknown) =>
  error instanceof DispatchError ? { type: error.type, step: error.step } : error;

describe('metrics and logs after a success, a refusal and a compensation', () => {
  const workflowIds: string[] = [];

  beforeAll(async () => {
    const ok = startRequest();
    const handle = await suite.h.client.submit(ok);
    workflowIds.push(handle.workflowId);
    await handle.result();

    const missing = startRequest({ runtime: { kind: 'ClusterTrainingRuntime', name: 'no-such-runtime' } });
    await expect(suite.h.client.startTrainJob(missing).catch(refusal)).resolves.toEqual({
      type: 'ErrUnsupported',
      step: 2,
    });

    // Without its LocalQueue, the real Kueue's Workload never lists the check: refused at step 9.
    await deleteLocalQueue(suite.ns.name, KUEUE_SAMPLE_QUEUE);
    const compensated = startRequest();
    await expect(suite.h.client.startTrainJob(compensated).catch(refusal)).resolves.toEqual({
      type: 'ErrRejected',
      step: 9,
    });
  });

  it('dispatch_starts_total counts each Start by outcome and error type', async () => {
    const text = await scrape();
    expect(sample(text, 'dispatch_starts_total', { outcome: 'success', error_type: 'none' })).toBe(1);
    expect(sample(text, 'dispatch_starts_total', { outcome: 'failure', error_type: 'ErrUnsupported' })).toBe(
      1,
    );
    expect(sample(text, 'dispatch_starts_total', { outcome: 'failure', error_type: 'ErrRejected' })).toBe(1);
    expect(sample(text, 'dispatch_starts_total', { outcome: 'failure', error_type: 'ErrInvalid' })).toBe(0);
    expect(sample(text, 'dispatch_starts_total', { outcome: 'cancelled', error_type: 'none' })).toBe(0);
  });

  it('dispatch_compensations_total counts the one compensation, stopped', async () => {
    const text = await scrape();
    expect(sample(text, 'dispatch_compensations_total', { result: 'stopped' })).toBe(1);
    expect(sample(text, 'dispatch_compensations_total', { result: 'failed' })).toBe(0);
  });

  it('dispatch_step_duration_seconds has one observation per activity of each step', async () => {
    const text = await scrape();
    const count = (step: string) => sample(text, 'dispatch_step_duration_seconds_count', { step });
    // Starts read the settings and run step 4's checks first in one local activity (prepareStart).
    expect(count('4 validate request')).toBe(3);
    expect(count('settings')).toBe(0);
    expect(count('2 read runtime')).toBe(3);
    for (const step of [
      '5 create runtime copy',
      '6 create TrainJob',
      '7 set owner',
      '8 read-back',
      '9 wait for Workload',
    ])
      expect(count(step)).toBe(2);
    expect(count('stop TrainJob')).toBe(1);
    expect(count('preflight reach')).toBe(0);
    // The Workload wait that gave up waited the whole of timeouts.workload (2 s). (How long the real
    // Kueue took for the other one is a matter of load, not of correctness: no bound on it here.)
    expect(
      sample(text, 'dispatch_step_duration_seconds_sum', { step: '9 wait for Workload' }),
    ).toBeGreaterThan(2);
  });

  it('every log line is JSON; every activity line carries the workflow id, run id and activity type', () => {
    const entries = logged();
    for (const entry of entries)
      expect(entry).toEqual(
        expect.objectContaining({
          time: expect.any(String),
          level: expect.any(String),
          message: expect.any(String),
        }),
      );
    const activity = entries.filter((e) => e.sdkComponent === 'activity');
    expect(activity.length).toBeGreaterThan(10);
    for (const entry of activity) {
      expect(entry).toEqual(
        expect.objectContaining({
          workflowId: expect.any(String),
          runId: expect.any(String),
          activityType: expect.any(String),
          step: expect.any(String),
        }),
      );
    }
  });

  it('each Kubernetes call is logged with its method, object and outcome', () => {
    const calls = logged().filter((e) => typeof e.method === 'string' && 'outcome' in e);
    const ok = calls.find((e) => e.workflowId === workflowIds[0] && e.activityType === 'createTrainJob');
    expect(ok).toEqual(
      expect.objectContaining({
        level: 'debug',
        message: 'Kubernetes call answered',
        method: 'create',
        object: expect.stringMatching(/^TrainJob observe-/),
        outcome: 'ok',
      }),
    );
    expect(calls).toContainEqual(
      expect.objectContaining({
        level: 'info',
        message: 'Kubernetes call refused',
        method: 'get',
        object: 'ClusterTrainingRuntime no-such-runtime',
        outcome: 'definite',
        status: 404,
        // Step 2's read on its first attempt runs in the fold of steps 2 and 5 (patch start-folded-calls).
        activityType: 'readRuntimeThenCopy',
        step: '2 read runtime, 5 create runtime copy',
      }),
    );
    expect(calls.filter((e) => e.activityType === 'stopTrainJob' && e.method === 'delete')).toHaveLength(1);
  });

  it('the Start outcome is logged once per Start, with its workflow id', () => {
    const closed = logged().filter((e) => e.message === 'Start closed');
    expect(closed.map((e) => e.outcome).sort()).toEqual(['failure', 'failure', 'success']);
    expect(closed.find((e) => e.outcome === 'success')?.workflowId).toBe(workflowIds[0]);
  });
});
