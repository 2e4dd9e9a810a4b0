import { AesGcmCodec } from '../client/codec/aes-gcm-codec';
import { describeKeyring, type CodecKeyring } from '../core/codec-keys';
import type { CodecServerSettings } from '../core/observability-config';
import { createCodecHandler } from './codec/codec-handler';
import { startCodecServer as listen } from './codec/codec-server';
import { listenError } from './listen-error';

export type RunningCodec = { url: string; banner: string; close(): Promise<void> };

/**
 * `ragtime codec-server` (docs/SECURITY.md): the payload codec for the Temporal UI on its own port, with the
 * configured keyring, token digests and allowed origins. The caller has checked that keys and tokens are set.
 */
export async function serveCodec(
  keyring: CodecKeyring,
  settings: CodecServerSettings,
  options: { host: string; port: number },
): Promise<RunningCodec> {
  const handler = createCodecHandler(new AesGcmCodec(keyring), { allowedOrigins: settings.allowedOrigins, tokenDigests: settings.tokens });
  const running = await listen({ handler, host: options.host, port: options.port }).catch((error: unknown) => {
    throw listenError(error, 'ragtime codec server', options.host, options.port, '--port or RAGTIME_CODEC_PORT');
  });
  const banner =
    `ragtime codec server: ${running.url} (POST /encode, /decode; token in Authorization: Bearer, or ${running.url}/<token> for the Temporal UI)\n` +
    `  keys:     ${describeKeyring(keyring)} (${keyring.source})\n` +
    `  tokens:   ${settings.tokens.length} (RAGTIME_CODEC_TOKENS)\n` +
    `  origins:  ${settings.allowedOrigins.join(', ')}`;
  return { url: running.url, banner, close: () => running.close() };
}
