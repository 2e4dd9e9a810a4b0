import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

/*
 * Spans of ragtime's own work inside activities (docs/OBSERVABILITY.md): retrieval and rerank with OpenInference
 * attribute names, model calls with the OpenTelemetry GenAI ones. They use the global OpenTelemetry API only: the
 * process installs the SDK (runtime/telemetry) or not. Without it every span is a no-op and, since attributes are
 * built only when `span.isRecording()`, nothing is computed: zero overhead when telemetry is off.
 */

/** What a span may carry. Content (questions, prompts, completions, chunk text) only when the operator opts in. */
export type SpanContentPolicy = { includeContent: boolean };

export const NO_CONTENT: SpanContentPolicy = { includeContent: false };

const TRACER_NAME = 'ragtime';

/**
 * Runs `fn` inside an active span (children, e.g. HTTP spans, nest under it). `attributes` is called only when the
 * span records. A thrown error ends the span with status ERROR and `error.type` (its code or class name); the
 * error's message — which may quote a model reply — is attached only with content on.
 */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: () => Attributes; policy: SpanContentPolicy },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL }, async (span) => {
    try {
      if (span.isRecording() && options.attributes) span.setAttributes(options.attributes());
      return await fn(span);
    } catch (error) {
      if (span.isRecording()) {
        const type = (error as { code?: unknown }).code ?? (error as Error | null)?.name ?? 'Error';
        span.setAttribute('error.type', String(type));
        span.setStatus({ code: SpanStatusCode.ERROR, message: options.policy.includeContent ? (error as Error).message : String(type) });
        if (options.policy.includeContent && error instanceof Error) span.recordException(error);
      }
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Sets attributes computed only when the span records. */
export function addAttributes(span: Span, attributes: () => Attributes): void {
  if (span.isRecording()) span.setAttributes(attributes());
}
