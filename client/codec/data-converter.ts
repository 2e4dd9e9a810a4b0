import type { DataConverter } from '@temporalio/common';
import { describeKeyring, type CodecKeyring } from '../../core/codec-keys';
import { AesGcmCodec } from './aes-gcm-codec';

/**
 * The data converter of every ragtime client and worker: the default payload converter (JSON) and, when a keyring
 * is configured, the AES-256-GCM codec — for failures too: their message and stack trace move into encoded
 * attributes (Temporal stores failure messages as plain text otherwise, and a message may quote a model's reply). The codec runs outside the workflow sandbox (the SDK encodes and decodes at
 * the worker's edge), so the workflow bundle never imports it.
 *
 * @example
 * const config = loadConfig(process.env);
 * const client = new Client({ connection, dataConverter: ragtimeDataConverter(config.codec) });
 */
export function ragtimeDataConverter(keyring: CodecKeyring | null): DataConverter {
  return keyring === null
    ? {}
    : { payloadCodecs: [new AesGcmCodec(keyring)], failureConverterPath: require.resolve('./failure-converter') };
}

/** One line for start-up output: whether payloads are encrypted, with which keys (ids only) from where. */
export function describePayloadEncryption(keyring: CodecKeyring | null): string {
  return keyring === null
    ? 'plain (no RAGTIME_CODEC_KEYS, RAGTIME_CODEC_KEY_FILE or data-dir key file: histories hold readable payloads)'
    : `AES-256-GCM, ${describeKeyring(keyring)} (${keyring.source})`;
}
