import { parseCodecKeyList, type CodecKeyring } from '../../core/codec-keys';

/*
 * Test-only AES-256 keys. They are fixed (not generated per run) because test/replay/histories/*.encrypted.json
 * were recorded with them and must stay decryptable; they protect nothing and are never used outside the tests
 * (real keys come from RAGTIME_CODEC_KEYS or a key file, docs/SECURITY.md).
 */
export const TEST_CODEC_KEY_1 = 'test-k1:QGkUM7VBN9sMOGRKGrMj6WCNofOalIl006SacN8XKb4=';
export const TEST_CODEC_KEY_2 = 'test-k2:2pSbdWP59BgYIfPy8IFRsJzDywxhnT2G0Xu80cpyyVk=';

/** A keyring from "id:base64[,…]" entries (the first is active); throws on a bad entry. */
export function testKeyring(...entries: string[]): CodecKeyring {
  const { keyring, problems } = parseCodecKeyList(entries.join(','), 'test keys');
  if (keyring === null) throw new Error(problems.join('; '));
  return keyring;
}

/** The keyring every workflow test runs with (openWorkflowEnv): test-k1 active. */
export const TEST_KEYRING: CodecKeyring = testKeyring(TEST_CODEC_KEY_1);
