import { RagClient } from '../client/rag-client';
import { assertWorkerPolling } from '../client/worker-check';
import type { RagConfig } from '../core/config';
import { loadConfig } from '../runtime/load-config';
import { telemetryClientInterceptors } from '../runtime/telemetry/client-interceptors';
import { setupTelemetry, type Telemetry } from '../runtime/telemetry/setup-telemetry';
import type { CliHost } from './host';

/** What every command needs: the parsed config, lazily a connected client, and the host's worker and servers. */
export type CliContext = {
  config: RagConfig;
  host: CliHost;
  uiBaseUrl: string;
  client(): Promise<RagClient>;
  /** The client, once a worker is known to poll the task queue (commands that start or advance a run). */
  clientWithWorker(): Promise<RagClient>;
  close(): Promise<void>;
};

// The SDK's default is 10 s; an unreachable local server should be reported sooner than that.
const CONNECT_TIMEOUT = '5s';

export function createCliContext(env: NodeJS.ProcessEnv, host: CliHost): CliContext {
  // Read on first use, so that a configuration error is reported by the command that needs the configuration and
  // commands that do not (codec-keys generate, which may create the key file a bad setting names) still run.
  let parsed: RagConfig | undefined;
  const configOf = (): RagConfig => (parsed ??= loadConfig(env));
  let connected: Promise<RagClient> | null = null;
  // OpenTelemetry for the commands that talk to Temporal (RAGTIME_OTEL_EXPORTER; off by default): client spans.
  let telemetry: Telemetry | null = null;
  const client = () =>
    (connected ??= RagClient.connect({
      address: configOf().temporal.address,
      namespace: configOf().temporal.namespace,
      taskQueue: configOf().temporal.taskQueue,
      connection: { connectTimeout: CONNECT_TIMEOUT },
      codec: configOf().codec,
      interceptors: telemetryClientInterceptors((telemetry ??= setupTelemetry(configOf().telemetry, { role: 'cli' }))),
    }));
  return {
    get config() {
      return configOf();
    },
    host,
    uiBaseUrl: (env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${env.TEMPORAL_UI_PORT ?? '8233'}`).replace(/\/+$/, ''),
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
