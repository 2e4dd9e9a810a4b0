import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { describeKeyring, type CodecKeyring } from '../../core/codec-keys';
import { RagError } from '../../core/errors';

/** The metadata of an encrypted payload (the convention of Temporal's encryption samples). */
export const ENCODING_ENCRYPTED = 'binary/encrypted';
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12; // GCM's standard nonce size, random per payload
const TAG_BYTES = 16;

const utf8 = new TextEncoder();
const text = new TextDecoder();

/**
 * AES-256-GCM payload codec with a keyring (docs/SECURITY.md). `encode` seals the whole payload (its metadata and
 * data, protobuf-serialized) with the active key into `nonce ‖ ciphertext ‖ tag`, and labels it with
 * `encoding: binary/encrypted` and `encryption-key-id: <id>`; the layout is that of Temporal's Go and Python
 * encryption samples (plain, not length-delimited, protobuf), so their codec servers can read it with the same key. `decode` opens a sealed payload with the key its id names
 * (any key of the ring: old keys keep decrypting after a rotation) and passes plain payloads through unchanged —
 * histories recorded before encryption was turned on stay readable.
 *
 * Errors are RagErrors that name key ids, never keys: CODEC_KEY_UNKNOWN (the id is not in this ring) and
 * PAYLOAD_DECRYPT_FAILED (authentication failed: tampered, truncated, or another key under that id).
 *
 * @example
 * const codec = new AesGcmCodec(config.codec); // config from loadConfig(process.env)
 * const client = new Client({ connection, dataConverter: { payloadCodecs: [codec] } });
 */
export class AesGcmCodec implements PayloadCodec {
  readonly activeKeyId: string;
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly describe: string;

  constructor(keyring: CodecKeyring) {
    this.activeKeyId = keyring.activeKeyId;
    this.keys = new Map(keyring.keys.map(({ id, key }) => [id, Buffer.from(key.bytes())]));
    this.describe = describeKeyring(keyring);
  }

  /** The ids this codec can decrypt, active first. */
  get keyIds(): string[] {
    return [this.activeKeyId, ...[...this.keys.keys()].filter((id) => id !== this.activeKeyId)];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.seal(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.open(payload));
  }

  private seal(payload: Payload): Payload {
    const key = this.keys.get(this.activeKeyId) as Buffer; // the keyring schema guarantees the active key is present
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { [METADATA_ENCODING_KEY]: utf8.encode(ENCODING_ENCRYPTED), [METADATA_ENCRYPTION_KEY_ID]: utf8.encode(this.activeKeyId) },
      data: sealed,
    };
  }

  private open(payload: Payload): Payload {
    const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
    if (encoding === undefined || encoding === null || text.decode(encoding) !== ENCODING_ENCRYPTED) return payload;
    const idBytes = payload.metadata?.[METADATA_ENCRYPTION_KEY_ID];
    if (!idBytes) throw new RagError('PAYLOAD_DECRYPT_FAILED', 'an encrypted payload carries no encryption-key-id; it was not written by this codec');
    const keyId = text.decode(idBytes);
    const key = this.keys.get(keyId);
    if (key === undefined) {
      throw new RagError(
        'CODEC_KEY_UNKNOWN',
        `a payload is encrypted with key "${keyId}", which this process does not hold (${this.describe}); ` +
          'give every client and worker the same keys (RAGTIME_CODEC_KEYS or RAGTIME_CODEC_KEY_FILE), keeping old keys after a rotation',
      );
    }
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES) {
      throw new RagError('PAYLOAD_DECRYPT_FAILED', `an encrypted payload (key "${keyId}") is ${data.length} bytes, too short to hold a nonce and a tag: it is truncated`);
    }
    const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch (error) {
      throw new RagError(
        'PAYLOAD_DECRYPT_FAILED',
        `an encrypted payload failed authentication with key "${keyId}": it was altered, or sealed with a different key under the same id`,
        { cause: error },
      );
    }
    const decoded = temporal.api.common.v1.Payload.decode(plain);
    return { metadata: decoded.metadata, data: decoded.data };
  }
}
