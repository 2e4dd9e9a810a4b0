import { RagClient } from '../client/rag-client';
import { assertWorkerPolling } from '../client/worker-check';
import type { RagConfig } from '../core/config';
import { RagError, describeZodError } from '../core/errors';
import { KbName } from '../core/knowledge/knowledge-base';
import { loadConfig } from '../runtime/load-config';
import { explainConnectFailure, securedConnection } from '../runtime/temporal-connection';
import { telemetryClientInterceptors } from '../runtime/telemetry/client-interceptors';
import { setupTelemetry, type Telemetry } from '../runtime/telemetry/setup-telemetry';
import { cliDataDir } from './data-dir';
import type { CliHost } from './host';

/** What every command needs: the parsed config, lazily a connected client, and the host's worker and servers. */
export type CliContext = {
  config: RagConfig;
  host: CliHost;
  /** Where run links point; null when TEMPORAL_UI_URL is set empty (no UI: no link). */
  uiBaseUrl: string | null;
  client(): Promise<RagClient>;
  /** The client, once a worker is known to poll the task queue (commands that start or advance a run). */
  clientWithWorker(): Promise<RagClient>;
  /** The knowledge base of a command run here: its --kb (checked as a name), else the configured default (RAGTIME_KB). */
  kbOf(flag: string | undefined): string;
  /**
   * The knowledge base a run or ingestion names: its --kb, else RAGTIME_KB / MILVUS_COLLECTION when this shell sets
   * one, else none, and the worker's default applies (so `ask` reads what the worker serves, as `make demo` leaves it).
   */
  runKbOf(flag: string | undefined): string | undefined;
  /**
   * runKbOf, for a command about to start work there: a knowledge base it names that does not exist is UNKNOWN_KB
   * (exit 2) before anything starts (issue 33 §5). The default one is not checked: the worker and ingestion create it.
   */
  startableKbOf(flag: string | undefined): Promise<string | undefined>;
  close(): Promise<void>;
};

// The SDK's default is 10 s; an unreachable local server should be reported sooner than that.
const CONNECT_TIMEOUT = '5s';

function checkedKb(flag: string | undefined): string | undefined {
  if (flag === undefined) return undefined;
  const parsed = KbName.safeParse(flag);
  if (!parsed.success) throw new RagError('INVALID_INPUT', describeZodError(`invalid --kb ${JSON.stringify(flag)}`, parsed.error));
  return parsed.data;
}

export function createCliContext(env: NodeJS.ProcessEnv, host: CliHost): CliContext {
  // Read on first use, so that a configuration error is reported by the command that needs the configuration and
  // commands that do not (codec-keys generate, which may create the key file a bad setting names) still run.
  let parsed: RagConfig | undefined;
  const configOf = (): RagConfig => (parsed ??= loadConfig(env, { defaultDataDir: cliDataDir(env) }));
  let connected: Promise<RagClient> | null = null;
  // OpenTelemetry for the commands that talk to Temporal (RAGTIME_OTEL_EXPORTER; off by default): client spans.
  let telemetry: Telemetry | null = null;
  const client = () =>
    (connected ??= RagClient.connect({
      address: configOf().temporal.address,
      namespace: configOf().temporal.namespace,
      taskQueue: configOf().temporal.taskQueue,
      connection: { ...securedConnection(configOf().temporal), connectTimeout: CONNECT_TIMEOUT },
      codec: configOf().codec,
      interceptors: telemetryClientInterceptors((telemetry ??= setupTelemetry(configOf().telemetry, { role: 'cli' }))),
      // SPECULATION: what the runs `ragtime ask` starts speculate (issue 17 §2).
      speculation: configOf().speculation,
    }).catch(async (error: unknown) => {
      throw await explainConnectFailure(error, configOf().temporal);
    }));
  const runKbOf = (flag: string | undefined): string | undefined =>
    checkedKb(flag) ?? (env.RAGTIME_KB?.trim() || env.MILVUS_COLLECTION?.trim() ? configOf().milvus.collection : undefined);
  return {
    get config() {
      return configOf();
    },
    host,
    kbOf: (flag) => checkedKb(flag) ?? configOf().milvus.collection,
    runKbOf,
    async startableKbOf(flag) {
      const kb = runKbOf(flag);
      if (kb === undefined || kb === configOf().milvus.collection) return kb;
      const knowledge = host.openKnowledge(configOf());
      try {
        await knowledge.open(kb);
      } finally {
        await knowledge.close();
      }
      return kb;
    },
    // TEMPORAL_UI_URL, else the local UI's port (environment > settings file > default: issue 33 §1).
    get uiBaseUrl() {
      return configOf().temporal.uiUrl;
    },
    client,
    async clientWithWorker() {
      const rag = await client();
      await assertWorkerPolling(rag, configOf().temporal);
      return rag;
    },
    async close() {
      try {
        if (connected) await (await connected).close();
      } finally {
        await telemetry?.shutdown();
      }
    },
  };
}
