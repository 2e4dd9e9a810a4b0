import { hostname } from 'node:os';
import * as path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { createActivities } from '../activities';
import { HEARTBEAT_THROTTLE_MS } from '../activities/heartbeats';
import { describeHousekeeping, keepHousekeepingSchedule, type HousekeepingSchedule } from '../client/housekeeping-schedule';
import { connectTemporal } from '../client/temporal-connection';
import { cachedWorkflowBundle } from './workflow-bundle';
import { untilWorkerPolls } from '../client/worker-check';
import { describePayloadEncryption, ragtimeDataConverter } from '../client/codec/data-converter';
import { describeTelemetry, setupTelemetry } from '../runtime/telemetry/setup-telemetry';
import type { RagConfig } from '../core/config';
import { describeModelPlan } from '../core/schemas/model-call';
import { workerKbSuffix, workerProviderPart } from '../core/settings/worker-identity';
import { refuseMixedProviders } from './mixed-providers';
import { buildAdapters } from './build-adapters';
import { modelEndpointStatus } from './model-endpoint-check';
import { oneLineLogFunction } from './one-line-log';
import { telemetryWorkerOptions } from './telemetry';
import { prepareWorkerMetrics } from './worker-metrics';
import { describeTemporalSecurity, explainConnectFailure, temporalConnectionOptions } from '../runtime/temporal-connection';

export type WorkerOptions = {
  /** Printed once the worker polls: what it runs against (never a secret). */
  log?: (line: string) => void;
  /** SDK log level; the default keeps the worker quiet but for warnings (bundling, polling chatter). */
  sdkLogLevel?: LogLevel;
  /** Join a task queue that a worker of another model provider polls (`--allow-mixed-providers`). */
  allowMixedProviders?: boolean;
};

/**
 * The provider a worker names in its identity: `local` for MODEL_PROVIDER=local (the OpenAI-compatible adapter on the
 * local model server), else the provider chosen (`openai` or `offline`).
 */
export const workerProvider = (config: RagConfig, chosen: 'openai' | 'offline'): string => (config.models.provider === 'local' ? 'local' : chosen);

/**
 * `<pid>@<host>/provider=<provider>/kb=<default knowledge base>`: no spaces, as the start-up line's `identity:` shows
 * it.
 */
export const workerIdentity = (config: RagConfig, provider: string) =>
  `${process.pid}@${hostname()}${workerProviderPart(provider)}${workerKbSuffix(config.milvus.collection)}`;

/** Creates or updates the task queue's housekeeping schedule, on a client connection of its own. */
async function keepHousekeeping(config: RagConfig): Promise<HousekeepingSchedule> {
  const connection = await connectTemporal(temporalConnectionOptions(config.temporal));
  try {
    const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter: ragtimeDataConverter(config.codec) });
    return await keepHousekeepingSchedule(client, config.temporal.taskQueue, { retentionDays: config.retention.days });
  } finally {
    await connection.close();
  }
}

/**
 * Runs a ragtime worker until it is told to stop (SIGINT/SIGTERM): every workflow and activity, on the configured
 * task queue, wired to the adapters the configuration selects.
 */
export async function runWorker(config: RagConfig, options: WorkerOptions = {}): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line));
  const metrics = await prepareWorkerMetrics(config);
  Runtime.install({ logger: new DefaultLogger(options.sdkLogLevel ?? 'WARN', config.log.stacks ? undefined : oneLineLogFunction), ...(metrics ? { telemetryOptions: metrics.telemetryOptions } : {}) });
  // Before the adapters: the SDK must be the global tracer provider before the first span opens.
  const telemetry = setupTelemetry(config.telemetry, { role: 'worker' });
  const adapters = buildAdapters(config, { onModelLearnt: (line) => log(`ragtime worker: ${line}`) });
  try {
    // The default knowledge base exists from the first start, as the one collection did.
    await adapters.knowledge.open(undefined, { create: true });
    const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal)).catch(async (error: unknown) => {
      throw await explainConnectFailure(error, config.temporal);
    });
    try {
      const provider = workerProvider(config, adapters.chat.provider);
      // Issue 43 §5: never share a task queue silently with a worker of another provider.
      await refuseMixedProviders(connection.workflowService, { ...config.temporal, provider, allowMixed: options.allowMixedProviders ?? false }, log);
      const metered = await metrics?.start();
      const traced = telemetryWorkerOptions(telemetry);
      const dataConverter = ragtimeDataConverter(config.codec);
      // Bundled with the interceptor modules and the failure converter, as workflowsPath would; cached on disk.
      const workflowBundle = await cachedWorkflowBundle({
        failureConverterPath: dataConverter.failureConverterPath,
        workflowInterceptorModules: traced.interceptors?.workflowModules,
      });
      const worker = await Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        // The SDK's default identity (pid@host) plus the provider and the default knowledge base: Temporal lists it
        // with the task queue's pollers, so `ragtime doctor` reads each live worker's default there (issue 33 §1) and
        // a worker of another provider sees this one (issue 43 §5).
        identity: workerIdentity(config, provider),
        // A cancelled activity learns it at its next heartbeat: every tick is sent (activities/heartbeats.ts).
        maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MS,
        workflowBundle,
        // Payload encryption: the codec runs at the worker's edge, outside the workflow sandbox.
        dataConverter,
        activities: createActivities({
          models: adapters.chat.models,
          retriever: adapters.retriever,
          ingest: { knowledge: adapters.knowledge },
          audit: adapters.audit,
          turns: adapters.turns,
          answerStream: adapters.answerStream,
          sessionTurns: config.conversation.sessionTurns,
          answerCheck: config.answerCheck,
          housekeeping: { audit: adapters.audit, turns: adapters.turns, answerStream: adapters.answerStream },
          // Synced sources (issue 46): a git source's files are written under the data dir for ingestFile to read.
          sync: { knowledge: adapters.knowledge, passes: adapters.syncPasses, filesDir: path.resolve(config.database.dataDir, 'sync-files') },
        }),
        // OpenTelemetry: interceptors and the workflow-span sink, or nothing when RAGTIME_OTEL_EXPORTER=none; metrics
        // (RAGTIME_METRICS_ADDRESS) read at the activity boundary.
        ...traced,
        interceptors: { ...traced.interceptors, workflowModules: undefined, activity: [...(traced.interceptors?.activity ?? []), ...(metered?.interceptors ?? [])] },
      });
      const running = worker.run();
      // The deployment's housekeeping schedule, with this worker's retention (issue 35 §1); RAGTIME_HOUSEKEEPING=false: none.
      const housekeeping = config.retention.housekeeping ? await keepHousekeeping(config) : null;
      const endpoint = adapters.chat.provider === 'openai' && config.models.baseUrl ? await modelEndpointStatus(config.models.baseUrl) : null;
      // The start-up line says the worker polls: printed once Temporal lists it among the task queue's pollers, so
      // that a question asked right after it (a script, a test) does not meet "no ragtime worker polls" (issue 31).
      await Promise.race([running, untilWorkerPolls(connection.workflowService, { ...config.temporal, identity: worker.options.identity })]);
      log(
        `ragtime worker: task queue "${config.temporal.taskQueue}" on ${config.temporal.address} (namespace ${config.temporal.namespace})\n` +
          `  identity:    ${worker.options.identity}; connection ${describeTemporalSecurity(config.temporal)}\n` +
          `  models:      ${adapters.chat.provider} — ${adapters.chat.models.describe}\n` +
          (endpoint ? `  endpoint:    ${endpoint}\n` : '') +
          (adapters.chat.models.plans?.() ?? []).map((plan) => `  output:      ${plan.variables.join(', ')} ${describeModelPlan(plan)}\n`).join('') +
          `  embeddings:  ${config.embeddings.model} (${config.embeddings.dim}-d) at ${config.embeddings.baseUrl}\n` +
          `  milvus:      ${config.milvus.address}, default knowledge base ${config.milvus.collection} (RAGTIME_KB; runs may name others)\n` +
          `  parents:     ${adapters.parentStoreLocation}\n` +
          `  audit:       ${adapters.auditLocation}\n` +
          `  rerank:      ${config.rerank.enabled ? `${config.rerank.model} at ${config.rerank.endpoint}` : 'off'}\n` +
          `  payloads:    ${describePayloadEncryption(config.codec)}\n` +
          `  telemetry:   ${describeTelemetry(config.telemetry)}\n` +
          `  housekeeping: ${housekeeping ? describeHousekeeping(housekeeping) : 'off (RAGTIME_HOUSEKEEPING=false)'}\n` +
          `  metrics:     ${metered ? `http://${metered.endpoint.address}/metrics (ragtime_* and temporal_*)` : 'off (RAGTIME_METRICS_ADDRESS)'}`,
      );
      await running;
    } finally {
      await connection.close();
    }
  } finally {
    await adapters.close();
    await metrics?.close();
    await telemetry.shutdown();
  }
}
