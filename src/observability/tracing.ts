// Opt-in OpenTelemetry tracing across client, workflow and activities (Temporal's
// interceptors-opentelemetry plugin): DISPATCH_TRACING=console prints spans on stdout,
// DISPATCH_TRACING=otlp sends them over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), which the exporter reads itself. Unset or "off": no tracing,
// and none of the OpenTelemetry SDK is loaded.
import type { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

export const TRACING_ENV = 'DISPATCH_TRACING';
export const DEFAULT_SERVICE_NAME = 'dispatch-kubeflow';

export interface DispatchTracing {
  /** For `Worker.create({ plugins })`, `new Client({ plugins })` and, for a prebuilt bundle, `bundleWorkflowCode({ plugins })`. */
  plugin: OpenTelemetryPlugin;
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/** Tracing to the given exporter, registered as the process's global tracer provider. */
export async function createTracing(options: {
  exporter: SpanExporter;
  serviceName?: string;
  batch?: boolean;
}): Promise<DispatchTracing> {
  const [
    { OpenTelemetryPlugin },
    { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor },
    { Resource },
    { AsyncLocalStorageContextManager },
  ] = await Promise.all([
    import('@temporalio/interceptors-opentelemetry'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/context-async-hooks'),
  ]);
  const resource = new Resource({ 'service.name': options.serviceName ?? DEFAULT_SERVICE_NAME });
  const spanProcessor = options.batch
    ? new BatchSpanProcessor(options.exporter)
    : new SimpleSpanProcessor(options.exporter);
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // The interceptors find the parent span through the active context, which needs a context
  // manager that follows async calls; register() also installs the W3C trace-context propagator.
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  const plugin = new OpenTelemetryPlugin({
    resource,
    spanProcessor,
    tracer: provider.getTracer(DEFAULT_SERVICE_NAME),
  });
  return { plugin, shutdown: () => provider.shutdown() };
}

/** The tracing DISPATCH_TRACING asks for, or undefined when it is off. */
export async function tracingFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Promise<DispatchTracing | undefined> {
  const mode = (env[TRACING_ENV] ?? '').trim().toLowerCase();
  if (mode === '' || mode === 'off') return undefined;
  const serviceName = env.OTEL_SERVICE_NAME || DEFAULT_SERVICE_NAME;
  if (mode === 'console') {
    const { ConsoleSpanExporter } = await import('@opentelemetry/sdk-trace-base');
    return createTracing({ exporter: new ConsoleSpanExporter(), serviceName });
  }
  if (mode === 'otlp') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return createTracing({ exporter: new OTLPTraceExporter(), serviceName, batch: true });
  }
  throw new Error(`${TRACING_ENV} ${env[TRACING_ENV]}: must be console, otlp or off`);
}
