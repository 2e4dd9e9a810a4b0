import { parseConfig, type RagConfig } from '../../core/config';
import { RagClient } from '../rag-client';

/** What every command needs: the parsed config and, lazily, a connected client. */
export type CliContext = {
  config: RagConfig;
  uiBaseUrl: string;
  client(): Promise<RagClient>;
  close(): Promise<void>;
};

export function createCliContext(env: NodeJS.ProcessEnv): CliContext {
  const config = parseConfig(env);
  let connected: Promise<RagClient> | null = null;
  return {
    config,
    uiBaseUrl: (env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${env.TEMPORAL_UI_PORT ?? '8233'}`).replace(/\/+$/, ''),
    client() {
      connected ??= RagClient.connect({
        address: config.temporal.address,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
      });
      return connected;
    },
    async close() {
      if (connected) await (await connected).close();
    },
  };
}
