import type { ClientInterceptors } from '@temporalio/client';
import type * as OtelInterceptors from '@temporalio/interceptors-opentelemetry';
import type { Telemetry } from './setup-telemetry';

/**
 * The Temporal client's OpenTelemetry interceptors: a span per start, update, signal and query
 * (StartWorkflow:…, UpdateWithStartWorkflow:…, QueryWorkflow:…), whose context travels to the workflow in the
 * headers. Undefined when telemetry is off, so the client carries no interceptor at all.
 *
 * @example
 * const rag = await RagClient.connect({ address, interceptors: telemetryClientInterceptors(telemetry) });
 */
export function telemetryClientInterceptors(telemetry: Telemetry): ClientInterceptors | undefined {
  if (!telemetry.enabled) return undefined;
  // Loaded only when tracing is on (it brings the OpenTelemetry SDK; see setupTelemetry).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { OpenTelemetryWorkflowClientInterceptor } = require('@temporalio/interceptors-opentelemetry') as typeof OtelInterceptors;
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}
