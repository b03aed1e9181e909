// Opt-in OpenTelemetry tracing: one trace from the client's start through the workflow to each
// activity, with the workflow bundle built with tracing's plugin (as a prebuilt bundle must be).
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, expect, it } from 'vitest';
import { workflowInterceptorModules } from '../../../src/observability/interceptors.js';
import { createTracing, tracingFromEnv, type DispatchTracing } from '../../../src/observability/tracing.js';
import { startRequest } from '../../support/requests.js';
import { dispatchSuite } from '../support/suite.js';

const exporter = new InMemorySpanExporter();
let tracing: DispatchTracing;

const suite = dispatchSuite('trace', async () => {
  tracing = await createTracing({ exporter });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: new URL('../../../src/workflows/index.ts', import.meta.url).pathname,
    workflowInterceptorModules: workflowInterceptorModules(),
    plugins: [tracing.plugin],
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
  });
  return { tracing, workflowBundle };
});
afterAll(async () => {
  await tracing?.shutdown();
});

async function spansUntil(done: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const spans = exporter.getFinishedSpans();
    if (done(spans) || Date.now() > deadline) return spans;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('a Start is one trace: client start, workflow run, and each activity', async () => {
  const handle = await suite.h.client.submit(startRequest());
  await handle.result();
  const spans = await spansUntil((s) => s.some((span) => span.name === 'RunWorkflow:StartTrainJob'));
  const named = (name: string) => spans.find((span) => span.name === name);
  const start = named('StartWorkflow:StartTrainJob');
  expect(start?.attributes.temporalWorkflowId).toBe(handle.workflowId);
  const traceId = start!.spanContext().traceId;
  for (const name of [
    'RunWorkflow:StartTrainJob',
    'StartActivity:createTrainJob',
    'RunActivity:createTrainJob',
    // Steps 7 and 8 run as one local activity on their first attempt (patch start-folded-calls).
    'RunActivity:setOwnerThenReadBack',
  ]) {
    expect(named(name)?.spanContext().traceId, name).toBe(traceId);
  }
  expect(
    spans.find((span) => span.name === 'RunActivity:createTrainJob')?.resource.attributes['service.name'],
  ).toBe('dispatch-kubeflow');
});

it('DISPATCH_TRACING: unset or off is no tracing; anything but console, otlp or off is refused', async () => {
  expect(await tracingFromEnv({})).toBeUndefined();
  expect(await tracingFromEnv({ DISPATCH_TRACING: 'off' })).toBeUndefined();
  await expect(tracingFromEnv({ DISPATCH_TRACING: 'jaeger' })).rejects.toThrow(
    'DISPATCH_TRACING jaeger: must be console, otlp or off',
  );
});
