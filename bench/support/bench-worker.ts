import type { Payload, PayloadCodec } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createAnswerStreamStore } from '../../activities/adapters/sql-answer-stream';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import { createSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import { ragtimeDataConverter } from '../../client/codec/data-converter';
import { parseCodecKeyList } from '../../core/codec-keys';
import type { FloorActivities } from './floor-workflow';
import { ZERO_LATENCY, type LatencyModel } from './latency';
import { benchAdapters } from './scenarios';
import { temporalSecurity } from './args';

/*
 * The worker a benchmark measures: every ragtime workflow, the real activity code, fake adapters that answer at once
 * or after the latency model's sleeps (support/latency.ts) — or, for the
 * floor, only floor-workflow.ts. Only the tuning knobs below differ from the production worker
 * (workers/run-worker.ts), and only when a flag sets them.
 */

export type WorkerTuning = {
  maxCachedWorkflows?: number;
  maxConcurrentWorkflowTaskExecutions?: number;
  maxConcurrentActivityTaskExecutions?: number;
  /** Workflow task pollers (a fixed maximum). */
  workflowTaskPollers?: number;
  /** Activity task pollers (a fixed maximum). */
  activityTaskPollers?: number;
  reuseV8Context?: boolean;
  /**
   * bundlerOptions.preloadModules: modules evaluated once per reusable V8 context and shared by all workflows, instead
   * of once per workflow (an experiment: the SDK deep-freezes them, which a module must tolerate).
   */
  preloadModules?: string[];
  /** maxEagerActivityReservationsPerWorkflowTask (SDK default 3; 0: no eager activity dispatch). */
  maxEagerActivities?: number;
};

/** `ragtime`: every ragtime workflow and activity. `floor`: only the floor workflow and its no-op activity. */
export type BenchWorkerConfig = {
  address: string;
  taskQueue: string;
  tuning: WorkerTuning;
  bundle?: 'ragtime' | 'floor';
  /** How long the fake providers take (support/latency.ts); absent: zero latency. */
  latency?: LatencyModel;
  /** ragtime's workflows already bundled (bundleWorkflowCode's code in a file), instead of bundling them again. */
  workflowBundlePath?: string;
  /**
   * Where the answer stream, the audit rows and the session turns go, as a deployment keeps them (one SQLite file, or
   * PostgreSQL); absent: the worker has no stores (the activities skip them), as the orchestration bench measures.
   */
  stores?: { sqliteFile: string; databaseUrl?: string };
  /** RAGTIME_CODEC_KEYS' form ("id:base64key"): payloads encrypted with AES-256-GCM, as a deployment with keys. */
  codecKeys?: string;
};

/** Payloads and bytes through the worker's data converter since it started (what it sent, what it read). */
export type PayloadTraffic = { encoded: { payloads: number; bytes: number }; decoded: { payloads: number; bytes: number } };

const payloadBytes = (payload: Payload): number =>
  (payload.data?.length ?? 0) + Object.entries(payload.metadata ?? {}).reduce((sum, [key, value]) => sum + key.length + (value?.length ?? 0), 0);

/**
 * Counts what crosses the worker's edge, last on encode and first on decode (the SDK runs codecs in order to encode,
 * in reverse to decode): the bytes on the wire, encrypted or not. It passes payloads through unchanged.
 */
class CountingCodec implements PayloadCodec {
  readonly traffic: PayloadTraffic = { encoded: { payloads: 0, bytes: 0 }, decoded: { payloads: 0, bytes: 0 } };

  async encode(payloads: Payload[]): Promise<Payload[]> {
    this.count(this.traffic.encoded, payloads);
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    this.count(this.traffic.decoded, payloads);
    return payloads;
  }

  private count(into: { payloads: number; bytes: number }, payloads: Payload[]): void {
    into.payloads += payloads.length;
    for (const payload of payloads) into.bytes += payloadBytes(payload);
  }
}

function benchDataConverter(codecKeys: string | undefined, counter: CountingCodec) {
  const parsed = codecKeys === undefined ? null : parseCodecKeyList(codecKeys, 'codecKeys');
  if (parsed && parsed.keyring === null) throw new Error(`bench worker codecKeys: ${parsed.problems.join('; ')}`);
  const converter = ragtimeDataConverter(parsed?.keyring ?? null);
  return { ...converter, payloadCodecs: [...(converter.payloadCodecs ?? []), counter] };
}

export function workerOptions(tuning: WorkerTuning): Partial<WorkerOptions> {
  return {
    ...(tuning.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: tuning.maxCachedWorkflows } : {}),
    ...(tuning.maxConcurrentWorkflowTaskExecutions !== undefined ? { maxConcurrentWorkflowTaskExecutions: tuning.maxConcurrentWorkflowTaskExecutions } : {}),
    ...(tuning.maxConcurrentActivityTaskExecutions !== undefined ? { maxConcurrentActivityTaskExecutions: tuning.maxConcurrentActivityTaskExecutions } : {}),
    ...(tuning.workflowTaskPollers !== undefined ? { workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: tuning.workflowTaskPollers } } : {}),
    ...(tuning.activityTaskPollers !== undefined ? { activityTaskPollerBehavior: { type: 'simple-maximum', maximum: tuning.activityTaskPollers } } : {}),
    ...(tuning.reuseV8Context !== undefined ? { reuseV8Context: tuning.reuseV8Context } : {}),
    ...(tuning.preloadModules?.length ? { bundlerOptions: { preloadModules: tuning.preloadModules } } : {}),
    ...(tuning.maxEagerActivities !== undefined ? { maxEagerActivityReservationsPerWorkflowTask: tuning.maxEagerActivities } : {}),
  };
}

/** The effective settings of a created worker, for the report. */
export function effectiveTuning(worker: Worker): Record<string, unknown> {
  const options = worker.options;
  return {
    maxCachedWorkflows: options.maxCachedWorkflows,
    // maxConcurrent*TaskExecutions end up as fixed-size slot suppliers of the tuner.
    workflowTaskSlots: options.tuner.workflowTaskSlotSupplier,
    activityTaskSlots: options.tuner.activityTaskSlotSupplier,
    workflowTaskPollerBehavior: options.workflowTaskPollerBehavior,
    activityTaskPollerBehavior: options.activityTaskPollerBehavior,
    reuseV8Context: options.reuseV8Context,
    workflowThreadPoolSize: options.workflowThreadPoolSize,
    maxEagerActivityReservationsPerWorkflowTask: options.maxEagerActivityReservationsPerWorkflowTask,
    ...(options.bundlerOptions?.preloadModules?.length ? { preloadModules: options.bundlerOptions.preloadModules } : {}),
  };
}

let runtimeInstalled = false;

export type BenchWorker = { worker: Worker; connection: NativeConnection; traffic: PayloadTraffic; closeStores(): Promise<void> };

export async function createBenchWorker(config: BenchWorkerConfig): Promise<BenchWorker> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  const stores = config.stores
    ? {
        answerStream: createAnswerStreamStore(config.stores),
        audit: createAuditStore({ ...config.stores, includeContent: false }),
        turns: createSessionTurnStore(config.stores),
      }
    : null;
  // Migrated before the first run, so that no run pays for it.
  if (stores) for (const store of Object.values(stores)) await store.migrate();
  const counter = new CountingCodec();
  const connection = await NativeConnection.connect({ ...temporalSecurity(), address: config.address });
  const worker = await Worker.create({
    dataConverter: benchDataConverter(config.codecKeys, counter),
    ...workerOptions(config.tuning),
    connection,
    taskQueue: config.taskQueue,
    // The floor gets a bundle of its own: with reuseV8Context every new workflow evaluates the bundle's modules again,
    // so sharing ragtime's bundle would charge the floor for ragtime's module scope.
    ...(config.bundle === 'floor'
      ? { workflowsPath: require.resolve('./floor-workflow'), activities: { benchNoop: async () => 1 } satisfies FloorActivities }
      : {
          ...(config.workflowBundlePath ? { workflowBundle: { codePath: config.workflowBundlePath } } : { workflowsPath: require.resolve('../../workflows') }),
          activities: createActivities({ ...benchAdapters(config.latency ?? ZERO_LATENCY), ...(stores ?? {}) }),
        }),
  });
  const closeStores = async () => {
    if (stores) await Promise.allSettled(Object.values(stores).map((store) => store.close()));
  };
  return { worker, connection, traffic: counter.traffic, closeStores };
}
