import { z } from 'zod';

/*
 * The payload-encryption keyring (docs/SECURITY.md): AES-256 keys by id, one of them active. The active key
 * encrypts; every key decrypts, so payloads written before a rotation stay readable. Key material comes from
 * RAGTIME_CODEC_KEYS or a key file, never from code, and no message here ever quotes a key.
 */

/** AES-256: 32 bytes of key material. */
export const CODEC_KEY_BYTES = 32;

/** The key file `make demo` generates when none exists, under RAGTIME_DATA_DIR. */
export const DEFAULT_CODEC_KEY_FILE_NAME = 'codec-keys.json';

const NODE_INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * Key bytes that do not print: JSON.stringify and console.log show "[redacted]", so a logged config leaks no key.
 * The bytes are read with `bytes()`, by the codec only.
 */
export class SecretKey {
  readonly #bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.#bytes = Uint8Array.from(bytes);
  }

  bytes(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }

  get length(): number {
    return this.#bytes.length;
  }

  toJSON(): string {
    return '[redacted]';
  }

  toString(): string {
    return '[redacted]';
  }

  [NODE_INSPECT](): string {
    return 'SecretKey [redacted]';
  }
}

/** A key id travels in every encrypted payload's metadata (plain text), so it is short and says nothing secret. */
export const CodecKeyId = z
  .string()
  .min(1, 'key id is empty')
  .max(64, 'key id is longer than 64 characters')
  .regex(/^[\w.-]+$/, 'key id may hold letters, digits and _ . - only');

export const CodecKey = z.object({
  id: CodecKeyId,
  key: z.instanceof(SecretKey).refine((key) => key.length === CODEC_KEY_BYTES, `key is not ${CODEC_KEY_BYTES} bytes`),
});
export type CodecKey = z.infer<typeof CodecKey>;

export const CodecKeyring = z
  .object({
    keys: z.array(CodecKey).min(1),
    activeKeyId: CodecKeyId,
    /** Where the keys came from, for start-up lines: a variable name or a file path (never key material). */
    source: z.string(),
  })
  .refine((ring) => ring.keys.some((key) => key.id === ring.activeKeyId), { message: 'the active key id is not one of the keys' })
  .refine((ring) => new Set(ring.keys.map((key) => key.id)).size === ring.keys.length, { message: 'key ids are not unique' });
export type CodecKeyring = z.infer<typeof CodecKeyring>;

type Parsed = { keyring: CodecKeyring | null; problems: string[] };

const GENERATE_HINT = 'make one with `ragtime codec-keys generate` or `openssl rand -base64 32`';

/** Standard or URL-safe base64 to bytes, or null when the text is not base64. */
function base64Bytes(text: string): Uint8Array | null {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(standard) || standard.replace(/=+$/, '').length % 4 === 1) return null;
  try {
    return Uint8Array.from(atob(standard), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Checks one entry; a problem names the entry by position and id, never by its key. */
function checkEntry(where: string, id: unknown, keyText: unknown, problems: string[]): CodecKey | null {
  const idResult = CodecKeyId.safeParse(id);
  const label = idResult.success ? `${where} (key id "${idResult.data}")` : where;
  if (!idResult.success) problems.push(`${where}: ${idResult.error.issues.map((issue) => issue.message).join('; ')}`);
  if (typeof keyText !== 'string' || keyText.trim() === '') {
    problems.push(`${label} has no key; ${GENERATE_HINT}`);
    return null;
  }
  const bytes = base64Bytes(keyText.trim());
  if (bytes === null) {
    problems.push(`${label} is not base64; ${GENERATE_HINT}`);
    return null;
  }
  if (bytes.length !== CODEC_KEY_BYTES) {
    problems.push(`${label} decodes to ${bytes.length} bytes, not ${CODEC_KEY_BYTES} (AES-256); ${GENERATE_HINT}`);
    return null;
  }
  return idResult.success ? { id: idResult.data, key: new SecretKey(bytes) } : null;
}

function assemble(keys: CodecKey[], activeKeyId: string | undefined, source: string, problems: string[]): Parsed {
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key.id)) problems.push(`${source}: key id "${key.id}" appears more than once; key ids must be unique`);
    seen.add(key.id);
  }
  const active = activeKeyId ?? keys[0]?.id;
  if (active !== undefined && !seen.has(active) && problems.length === 0) {
    problems.push(`${source}: the active key id "${active}" is not one of the keys (${[...seen].join(', ')})`);
  }
  if (problems.length > 0 || active === undefined) return { keyring: null, problems };
  return { keyring: { keys, activeKeyId: active, source }, problems };
}

/**
 * RAGTIME_CODEC_KEYS: "id1:base64key,id2:base64key"; the first entry is the active key (it encrypts), the others
 * only decrypt. Rotation: put the new key first and keep the old ones after it.
 */
export function parseCodecKeyList(text: string, variable = 'RAGTIME_CODEC_KEYS'): Parsed {
  const problems: string[] = [];
  const keys: CodecKey[] = [];
  const entries = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) return { keyring: null, problems: [`${variable} holds no keys: expected "id:base64key[,id:base64key…]"`] };
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(':');
    const where = `${variable} entry ${index + 1}`;
    if (colon < 0) {
      problems.push(`${where} is not "id:base64key"`);
      return;
    }
    const key = checkEntry(where, entry.slice(0, colon).trim(), entry.slice(colon + 1), problems);
    if (key) keys.push(key);
  });
  return assemble(keys, undefined, variable, problems);
}

/**
 * The key file (RAGTIME_CODEC_KEY_FILE, or RAGTIME_DATA_DIR/codec-keys.json):
 * `{ "activeKeyId": "k2", "keys": [{ "id": "k2", "key": "<base64>" }, { "id": "k1", "key": "<base64>" }] }`.
 * `activeKeyId` may be left out: the first key is active.
 */
export const CodecKeyFile = z.object({
  activeKeyId: z.string().optional(),
  keys: z.array(z.object({ id: z.unknown(), key: z.unknown() })).min(1, 'the file lists no keys'),
});

export function parseCodecKeyFile(text: string, path: string): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The parser's message may quote the file's text, key material included: say only that it is not JSON.
    return { keyring: null, problems: [`codec key file ${path} is not JSON: expected {"activeKeyId": "…", "keys": [{"id": "…", "key": "<base64>"}]}`] };
  }
  const file = CodecKeyFile.safeParse(json);
  if (!file.success) {
    const why = file.error.issues.map((issue) => `${issue.path.join('.') || 'the file'}: ${issue.message}`).join('; ');
    return { keyring: null, problems: [`codec key file ${path} is not {"activeKeyId", "keys": [{"id", "key"}]} (${why})`] };
  }
  const problems: string[] = [];
  const keys = file.data.keys.flatMap((entry, index) => checkEntry(`codec key file ${path}, key ${index + 1}`, entry.id, entry.key, problems) ?? []);
  return assemble(keys, file.data.activeKeyId, path, problems);
}

/** The key ids of a keyring, active first, for messages and start-up lines. */
export function describeKeyring(keyring: CodecKeyring): string {
  const others = keyring.keys.filter((key) => key.id !== keyring.activeKeyId).map((key) => key.id);
  return `active key "${keyring.activeKeyId}"${others.length > 0 ? `, also decrypts ${others.map((id) => `"${id}"`).join(', ')}` : ''}`;
}

/** How parseConfig reads the key file: the text, or null when there is no such file. Other errors throw. */
export type ConfigFiles = { readText(path: string): string | null };

type Found = { name: string; value: string };

/** The file's error code (ENOENT, EACCES…), never its text: a parser's message could quote key material. */
const errorCode = (error: unknown): string => (error as { code?: unknown } | null)?.code?.toString() ?? 'unreadable';

/**
 * The keyring from RAGTIME_CODEC_KEYS, RAGTIME_CODEC_KEY_FILE, or (neither set) RAGTIME_DATA_DIR/codec-keys.json
 * when that file exists; null (plain payloads) when there is none. Problems are reported, naming the variable.
 */
export function readCodecKeyring(
  sources: { keys: Found | undefined; keyFile: Found | undefined; dataDir: string },
  files: ConfigFiles | undefined,
  report: (message: string) => void,
): CodecKeyring | null {
  const { keys, keyFile, dataDir } = sources;
  const take = ({ keyring, problems }: Parsed) => {
    problems.forEach(report);
    return keyring;
  };
  if (keys && keyFile) {
    report('RAGTIME_CODEC_KEYS and RAGTIME_CODEC_KEY_FILE are both set: set one of them');
    return null;
  }
  if (keys) return take(parseCodecKeyList(keys.value));
  const read = (path: string): string | null | undefined => {
    try {
      return files?.readText(path);
    } catch (error) {
      report(`${keyFile ? 'RAGTIME_CODEC_KEY_FILE' : 'the codec key file'} ${path} cannot be read (${errorCode(error)}): check its permissions`);
      return undefined;
    }
  };
  if (keyFile) {
    if (files === undefined) {
      report('RAGTIME_CODEC_KEY_FILE is set, but this caller reads no files: build the config with loadConfig (runtime/load-config.ts)');
      return null;
    }
    const text = read(keyFile.value);
    if (text === null) report(`RAGTIME_CODEC_KEY_FILE=${keyFile.value}: no such file; create it with \`ragtime codec-keys generate --file ${keyFile.value}\``);
    return typeof text === 'string' ? take(parseCodecKeyFile(text, keyFile.value)) : null;
  }
  if (files === undefined) return null;
  const defaultFile = `${dataDir.replace(/\/+$/, '')}/${DEFAULT_CODEC_KEY_FILE_NAME}`;
  const text = read(defaultFile);
  return typeof text === 'string' ? take(parseCodecKeyFile(text, defaultFile)) : null;
}
