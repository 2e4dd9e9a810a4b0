import type * as OtelInterceptors from '@temporalio/interceptors-opentelemetry';
import type { OpenTelemetryWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSink, WorkerOptions } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { Telemetry } from '../runtime/telemetry/setup-telemetry';

/** The workflow-side interceptors, bundled into the workflow code (they run in the sandbox). */
export const OTEL_WORKFLOW_INTERCEPTOR_MODULE = require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/**
 * What a worker needs for OpenTelemetry (docs/OBSERVABILITY.md), following Temporal's interceptors-opentelemetry
 * sample: workflow interceptors (RunWorkflow, StartActivity, StartChildWorkflowExecution… spans, made in the
 * sandbox and handed out through the `exporter` sink to the process's span processor), activity interceptors
 * (RunActivity spans, inside which ragtime's retrieve / rerank / chat spans nest) and the client interceptor for
 * the worker's own client calls. Explicit interceptors rather than the 1.24 OpenTelemetryPlugin, which is marked
 * experimental ("APIs may change without notice") and also installs Nexus interceptors ragtime does not use.
 * Empty when telemetry is off: no interceptor, no sink, nothing bundled.
 */
export function telemetryWorkerOptions(telemetry: Telemetry): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!telemetry.enabled || telemetry.spanProcessor === null || telemetry.resource === null) return {};
  // Loaded only when tracing is on (it brings the OpenTelemetry SDK; see setupTelemetry).
  const { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, OpenTelemetryWorkflowClientInterceptor } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('@temporalio/interceptors-opentelemetry') as typeof OtelInterceptors;
  return {
    interceptors: {
      workflowModules: [OTEL_WORKFLOW_INTERCEPTOR_MODULE],
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
      client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    },
    sinks: { exporter: withoutWorkflowContent(makeWorkflowExporter(telemetry.spanProcessor, telemetry.resource)) },
  };
}

/**
 * The SDK's workflow-span sink copies the whole WorkflowInfo onto every workflow span's attributes — memo included,
 * and ragtime's memo holds the (shortened) question, which the codec keeps out of the history. Only the run's
 * identity goes through: workflowId, runId, workflowType, namespace, taskQueue, attempt.
 */
function withoutWorkflowContent(sink: InjectedSink<OpenTelemetryWorkflowExporter>): InjectedSink<OpenTelemetryWorkflowExporter> {
  return {
    export: {
      ...sink.export,
      fn: (info, spans) => {
        const { workflowId, runId, workflowType, namespace, taskQueue, attempt } = info;
        // The SDK's function only spreads `info` into the attributes, so the subset stands in for the whole.
        return sink.export.fn({ workflowId, runId, workflowType, namespace, taskQueue, attempt } as WorkflowInfo, spans);
      },
    },
  };
}
