import { inspect } from 'node:util';
import { defaultPayloadConverter, METADATA_ENCODING_KEY, type Payload } from '@temporalio/common';
import { AesGcmCodec, ENCODING_ENCRYPTED, METADATA_ENCRYPTION_KEY_ID } from '../../../client/codec/aes-gcm-codec';
import { isRagError, type RagError } from '../../../core/errors';
import { TEST_CODEC_KEY_1, TEST_CODEC_KEY_2, testKeyring } from '../../support/codec-keys';

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');
const payloadOf = (value: unknown): Payload => defaultPayloadConverter.toPayload(value) as Payload;
const valueOf = (payload: Payload | undefined): unknown => defaultPayloadConverter.fromPayload(payload as Payload);

async function rejection(promise: Promise<unknown>): Promise<RagError> {
  try {
    await promise;
  } catch (error) {
    if (isRagError(error)) return error;
    throw error;
  }
  throw new Error('expected a RagError');
}

const question = { question: '丹瑾是什么属性？ a distinctive question', chunks: ['丹瑾是湮灭属性角色。'] };

describe('AesGcmCodec round trips', () => {
  const codec = new AesGcmCodec(testKeyring(TEST_CODEC_KEY_1));

  test('encode seals the whole payload under the active key id; decode restores it exactly', async () => {
    const plain = [payloadOf(question), payloadOf(null), payloadOf(42), { metadata: { encoding: Buffer.from('binary/plain') }, data: Buffer.from([0, 1, 2, 255]) }];
    const sealed = await codec.encode(plain);
    for (const payload of sealed) {
      expect(Object.keys(payload.metadata ?? {}).sort()).toEqual([METADATA_ENCODING_KEY, METADATA_ENCRYPTION_KEY_ID]);
      expect(text(payload.metadata?.[METADATA_ENCODING_KEY])).toBe(ENCODING_ENCRYPTED);
      expect(text(payload.metadata?.[METADATA_ENCRYPTION_KEY_ID])).toBe('test-k1');
      expect(text(payload.data)).not.toContain('丹瑾');
      expect(text(payload.data)).not.toContain('distinctive');
    }
    const opened = await codec.decode(sealed);
    expect(opened.map((p) => ({ metadata: p.metadata, data: Buffer.from(p.data ?? []) }))).toEqual(
      plain.map((p) => ({ metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v)])), data: Buffer.from(p.data ?? []) })),
    );
    expect(valueOf(opened[0])).toEqual(question);
  });

  test('each encoding uses a fresh nonce: the same value seals differently', async () => {
    const [a, b] = await codec.encode([payloadOf('same'), payloadOf('same')]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  test('plain payloads (histories recorded before encryption) pass through decode unchanged', async () => {
    const plain = payloadOf({ question: 'from before encryption' });
    const [decoded] = await codec.decode([plain]);
    expect(decoded).toBe(plain);
  });
});

describe('key rotation', () => {
  test('encode with k1, rotate to k2 active: old payloads still decode, new ones use k2', async () => {
    const before = new AesGcmCodec(testKeyring(TEST_CODEC_KEY_1));
    const old = await before.encode([payloadOf('sealed under k1')]);
    const rotated = new AesGcmCodec(testKeyring(TEST_CODEC_KEY_2, TEST_CODEC_KEY_1));
    expect(rotated.keyIds).toEqual(['test-k2', 'test-k1']);
    expect(valueOf((await rotated.decode(old))[0])).toBe('sealed under k1');
    const fresh = await rotated.encode([payloadOf('sealed under k2')]);
    expect(text(fresh[0]!.metadata?.[METADATA_ENCRYPTION_KEY_ID])).toBe('test-k2');
    // A process that has not rotated yet cannot read the new payloads: a typed error naming the ids, not a key.
    const error = await rejection(before.decode(fresh));
    expect(error.code).toBe('CODEC_KEY_UNKNOWN');
    expect(error.message).toMatchInlineSnapshot(
      `"a payload is encrypted with key "test-k2", which this process does not hold (active key "test-k1"); give every client and worker the same keys (RAGTIME_CODEC_KEYS or RAGTIME_CODEC_KEY_FILE), keeping old keys after a rotation"`,
    );
  });
});

describe('tampering', () => {
  const codec = new AesGcmCodec(testKeyring(TEST_CODEC_KEY_1));

  test.each([
    ['a flipped ciphertext bit', (data: Buffer) => { data[20] = (data[20] ?? 0) ^ 1; return data; }],
    ['a flipped tag bit', (data: Buffer) => { data[data.length - 1] = (data[data.length - 1] ?? 0) ^ 1; return data; }],
    ['a flipped nonce bit', (data: Buffer) => { data[0] = (data[0] ?? 0) ^ 1; return data; }],
    ['a truncated payload', (data: Buffer) => data.subarray(0, data.length - 5)],
    ['a payload cut to less than nonce and tag', (data: Buffer) => data.subarray(0, 20)],
  ])('%s fails authentication with PAYLOAD_DECRYPT_FAILED', async (_what, tamper) => {
    const [sealed] = await codec.encode([payloadOf(question)]);
    const altered = { ...sealed, data: tamper(Buffer.from(sealed!.data!)) };
    const error = await rejection(codec.decode([altered]));
    expect(error.code).toBe('PAYLOAD_DECRYPT_FAILED');
    expect(error.message).toContain('"test-k1"');
  });

  test('another key under the same id fails authentication, it does not return garbage', async () => {
    const [sealed] = await codec.encode([payloadOf(question)]);
    const impostor = new AesGcmCodec(testKeyring(TEST_CODEC_KEY_2.replace('test-k2', 'test-k1')));
    const error = await rejection(impostor.decode([sealed!]));
    expect(error.code).toBe('PAYLOAD_DECRYPT_FAILED');
  });

  test('an encrypted payload without a key id is refused', async () => {
    const [sealed] = await codec.encode([payloadOf(question)]);
    const { [METADATA_ENCRYPTION_KEY_ID]: _id, ...metadata } = sealed!.metadata ?? {};
    expect((await rejection(codec.decode([{ ...sealed, metadata }]))).code).toBe('PAYLOAD_DECRYPT_FAILED');
  });
});

test('keys never print: a logged keyring shows ids only', () => {
  const keyring = testKeyring(TEST_CODEC_KEY_1);
  const secret = TEST_CODEC_KEY_1.split(':')[1]!;
  expect(JSON.stringify(keyring)).not.toContain(secret.slice(0, 12));
  expect(inspect(keyring, { depth: 5 })).not.toContain(secret.slice(0, 12));
  expect(JSON.stringify(keyring)).toContain('[redacted]');
});
