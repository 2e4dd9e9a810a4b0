import { Client, type Connection } from '@temporalio/client';
import { connectTemporal } from '../client/temporal-connection';
import type { RuntimeOptions, WorkerOptions } from '@temporalio/worker';
import type { RagConfig } from '../core/config';
import { freeLoopbackAddress, startMetricsEndpoint, type MetricsEndpoint } from '../runtime/metrics/metrics-endpoint';
import { ragtimeInstruments } from '../runtime/metrics/ragtime-instruments';
import { temporalConnectionOptions } from '../runtime/temporal-connection';
import { metricsActivityInterceptors, type ModelsByActivity } from './metrics-interceptor';

/*
 * A worker's metrics when RAGTIME_METRICS_ADDRESS is set (off by default): the SDK's Prometheus exporter on a
 * private loopback port (its names prefixed temporal_, counters with _total, durations in seconds), ragtime's own
 * instruments, and the one public endpoint that serves both (runtime/metrics/metrics-endpoint.ts).
 */

export type WorkerMetrics = {
  /** For Runtime.install: where the SDK's core exports its metrics. */
  telemetryOptions: NonNullable<RuntimeOptions['telemetryOptions']>;
  /** Serves /metrics; the instruments are created on its meter. */
  start(): Promise<{ endpoint: MetricsEndpoint; interceptors: NonNullable<WorkerOptions['interceptors']>['activity'] }>;
  close(): Promise<void>;
};

const modelsOf = (config: RagConfig): ModelsByActivity => {
  const offline = config.models.provider === 'offline' || !config.models.apiKey;
  if (offline) return { planComplexity: 'offline', gradeEvidence: 'offline', planRewrite: 'offline', generateAnswer: 'offline' };
  const { fastModel, gradeModel, answerModel } = config.models;
  return { planComplexity: fastModel, gradeEvidence: gradeModel, planRewrite: fastModel, generateAnswer: answerModel ?? gradeModel };
};

export async function prepareWorkerMetrics(config: RagConfig): Promise<WorkerMetrics | null> {
  const address = config.telemetry.metricsAddress;
  if (address === null) return null;
  const sdkAddress = await freeLoopbackAddress();
  let endpoint: MetricsEndpoint | null = null;
  let connection: Connection | null = null;
  return {
    telemetryOptions: {
      metrics: { metricPrefix: 'temporal_', prometheus: { bindAddress: sdkAddress, countersTotalSuffix: true, useSecondsForDurations: true } },
    },
    async start() {
      endpoint = await startMetricsEndpoint(address, { sdkAddress, serviceName: config.telemetry.serviceName });
      const instruments = ragtimeInstruments(endpoint.meter);
      // Waiting runs live in Temporal, not in a worker: counted from visibility at each scrape, for the task queue.
      const waiting = `TaskQueue = "${config.temporal.taskQueue}" AND ExecutionStatus = "Running" AND RagStatus = "awaiting_input"`;
      let client: Client | null = null;
      instruments.hitlWaiting.addCallback(async (observe) => {
        connection ??= await connectTemporal({ ...temporalConnectionOptions(config.temporal), connectTimeout: '2s' });
        client ??= new Client({ connection, namespace: config.temporal.namespace });
        const { count } = await client.workflow.count(waiting);
        observe.observe(count, { task_queue: config.temporal.taskQueue });
      });
      return { endpoint, interceptors: [metricsActivityInterceptors(instruments, modelsOf(config))] };
    },
    async close() {
      await endpoint?.close();
      await connection?.close();
    },
  };
}
