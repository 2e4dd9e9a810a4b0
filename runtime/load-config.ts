import { readFileSync } from 'node:fs';
import type { ConfigFiles } from '../core/codec-keys';
import { parseConfig, type ParseOptions, type RagConfig } from '../core/config';

/** Reads files for parseConfig: the text, or null when the file does not exist (other errors throw). */
export const nodeConfigFiles: ConfigFiles = {
  readText(path: string): string | null {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  },
};

/**
 * parseConfig with file access: what a ragtime process (CLI, worker, HTTP server) calls to read its configuration.
 * It also reads the codec key file (RAGTIME_CODEC_KEY_FILE, else RAGTIME_DATA_DIR/codec-keys.json when present) and
 * the data dir's settings file (RAGTIME_DATA_DIR/settings.env, written by scripts/services.sh; issue 33 §1): the
 * environment wins over it, and it wins over the defaults.
 *
 * @example
 * const config = loadConfig(process.env);
 * const rag = await RagClient.connect({ address: config.temporal.address, codec: config.codec });
 */
export function loadConfig(env: Record<string, string | undefined>, options?: ParseOptions): RagConfig {
  return parseConfig(env, nodeConfigFiles, options);
}
