import { context, propagation, trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
import type * as SdkTraceNode from '@opentelemetry/sdk-trace-node';
import type * as SemanticConventions from '@opentelemetry/semantic-conventions';
import type { TelemetrySettings } from '../../core/observability-config';

/**
 * A process's OpenTelemetry tracing (docs/OBSERVABILITY.md): null-object when off (RAGTIME_OTEL_EXPORTER=none, the
 * default), so callers add interceptors only when `enabled`.
 */
export type Telemetry = {
  readonly enabled: boolean;
  /** The processor spans end in; the worker's workflow-span sink feeds the same one. Null when off. */
  readonly spanProcessor: SpanProcessor | null;
  /** service.name and the rest of what names this process on its spans. Null when off. */
  readonly resource: Resource | null;
  /** Spans may carry content (RAGTIME_OTEL_CONTENT=true). */
  readonly includeContent: boolean;
  /** Flushes and stops exporting; call it before the process exits. */
  shutdown(): Promise<void>;
};

export type TelemetryOptions = {
  /** Who is tracing: service.name is OTEL_SERVICE_NAME, else `ragtime-<role>`. */
  role: 'worker' | 'cli' | 'api' | 'codec-server';
  /** A span exporter of your own (tests: an InMemorySpanExporter); it overrides RAGTIME_OTEL_EXPORTER. */
  exporter?: SpanExporter;
};

const disabled = (includeContent: boolean): Telemetry => ({
  enabled: false,
  spanProcessor: null,
  resource: null,
  includeContent,
  shutdown: async () => undefined,
});

/**
 * Installs the OpenTelemetry SDK for this process when an exporter is chosen: a NodeTracerProvider registered as the
 * global one (with the async-hooks context manager and W3C trace-context propagation), exporting to the console
 * (each span as it ends) or over OTLP/HTTP (batched). With `none` nothing is installed and the global API stays a
 * no-op, so the spans ragtime's activities open cost nothing.
 *
 * @example
 * const telemetry = setupTelemetry(config.telemetry, { role: 'cli' });
 * const rag = await RagClient.connect({ address, codec: config.codec, interceptors: telemetryClientInterceptors(telemetry) });
 * // … and before exiting:
 * await telemetry.shutdown();
 */
export function setupTelemetry(settings: TelemetrySettings, options: TelemetryOptions): Telemetry {
  if (!options.exporter && settings.exporter === 'none') return disabled(settings.includeContent);
  // The SDK is loaded only when tracing is on: it is about a fifth of a CLI start (~200 ms), paid by every command.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof SdkTraceBase;
  const { Resource } = require('@opentelemetry/resources') as typeof Resources;
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof SdkTraceNode;
  const { ATTR_SERVICE_NAME } = require('@opentelemetry/semantic-conventions') as typeof SemanticConventions;
  const otlp = () => new (require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp).OTLPTraceExporter({ url: settings.otlpTracesUrl });
  /* eslint-enable @typescript-eslint/no-require-imports */
  const resource = new Resource({ [ATTR_SERVICE_NAME]: settings.serviceName ?? `ragtime-${options.role}` });
  let spanProcessor: SpanProcessor;
  if (options.exporter) spanProcessor = new SimpleSpanProcessor(options.exporter);
  else if (settings.exporter === 'otlp') spanProcessor = new BatchSpanProcessor(otlp());
  else spanProcessor = new SimpleSpanProcessor(new ConsoleSpanExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  return {
    enabled: true,
    spanProcessor,
    resource,
    includeContent: settings.includeContent,
    async shutdown() {
      await provider.shutdown();
      // Unregisters the globals provider.register() set, so that a later setup (tests) can register again.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** One line for start-up output: where spans go and whether they carry content. */
export function describeTelemetry(settings: TelemetrySettings): string {
  if (settings.exporter === 'none') return 'off (RAGTIME_OTEL_EXPORTER=none)';
  const where = settings.exporter === 'console' ? 'console' : `OTLP/HTTP ${settings.otlpTracesUrl}`;
  return `${where}, ${settings.includeContent ? 'with content (RAGTIME_OTEL_CONTENT=true)' : 'no content'}`;
}
