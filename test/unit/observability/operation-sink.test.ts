// The operation sinks count each run's close, and its compensation, once: a closing workflow task
// Temporal refused (a wake signal arrived meanwhile) runs again, not as replay, and calls the sink
// a second time.
import type { WorkflowInfo } from '@temporalio/workflow';
import { expect, it } from 'vitest';
import { metricsSinks } from '../../../src/observability/interceptors.js';
import { createDispatchMetrics } from '../../../src/observability/metrics.js';

const info = (runId: string) =>
  ({
    runId,
    workflowId: 'watch/ns/a/u',
    workflowType: 'WatchTrainJob',
    startTime: new Date(),
  }) as unknown as WorkflowInfo;

it('counts a run closed twice (its closing task run again) once, and two runs twice', async () => {
  const metrics = createDispatchMetrics();
  const { fn } = metricsSinks(metrics).dispatchMetrics.operationClosed;
  await fn(info('r1'), 'watch', 'success', 'none');
  await fn(info('r1'), 'watch', 'success', 'none');
  await fn(info('r2'), 'watch', 'success', 'none');
  const counted = (await metrics.operations.get()).values.find(
    (v) => v.labels.operation === 'watch' && v.labels.outcome === 'success',
  );
  expect(counted?.value).toBe(2);
});

it('counts a run\'s compensation once, however often its task runs again, and each run\'s own', async () => {
  const metrics = createDispatchMetrics();
  const { fn } = metricsSinks(metrics).dispatchMetrics.compensationFinished;
  await fn(info('r1'), 'stopped');
  await fn(info('r1'), 'stopped');
  await fn(info('r2'), 'failed');
  const values = (await metrics.compensations.get()).values;
  expect(values.find((v) => v.labels.result === 'stopped')?.value).toBe(1);
  expect(values.find((v) => v.labels.result === 'failed')?.value).toBe(1);
});
