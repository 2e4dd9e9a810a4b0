import type { ConfigFiles } from '../../../core/codec-keys';
import { parseConfig } from '../../../core/config';
import { isRagError, type RagError } from '../../../core/errors';

const K1 = 'QGkUM7VBN9sMOGRKGrMj6WCNofOalIl006SacN8XKb4=';
const K2 = '2pSbdWP59BgYIfPy8IFRsJzDywxhnT2G0Xu80cpyyVk=';
const SHORT = Buffer.alloc(16, 7).toString('base64');

/** An in-memory file system for parseConfig's key-file reads. */
const filesOf = (tree: Record<string, string>): ConfigFiles => ({ readText: (path) => tree[path] ?? null });

function configError(env: Record<string, string>, files?: ConfigFiles): RagError {
  try {
    parseConfig(env, files);
  } catch (error) {
    if (isRagError(error)) return error;
    throw error;
  }
  throw new Error('expected parseConfig to throw');
}

const ids = (env: Record<string, string>, files?: ConfigFiles) => {
  const codec = parseConfig(env, files).codec;
  return codec && { active: codec.activeKeyId, ids: codec.keys.map((key) => key.id), source: codec.source, lengths: codec.keys.map((key) => key.key.bytes().length) };
};

describe('codec keys (RAGTIME_CODEC_KEYS, RAGTIME_CODEC_KEY_FILE)', () => {
  test('no key anywhere: the codec is off (plain payloads)', () => {
    expect(parseConfig({}).codec).toBeNull();
    expect(parseConfig({}, filesOf({})).codec).toBeNull();
  });

  test('RAGTIME_CODEC_KEYS: the first entry is active, the others decrypt', () => {
    expect(ids({ RAGTIME_CODEC_KEYS: ` k2:${K2} , k1:${K1} ` })).toEqual({ active: 'k2', ids: ['k2', 'k1'], source: 'RAGTIME_CODEC_KEYS', lengths: [32, 32] });
  });

  test('URL-safe base64 and missing padding are accepted', () => {
    const urlSafe = Buffer.from(K1, 'base64').toString('base64url');
    expect(ids({ RAGTIME_CODEC_KEYS: `k1:${urlSafe}` })?.lengths).toEqual([32]);
  });

  test('RAGTIME_CODEC_KEY_FILE: a JSON file with activeKeyId (or the first key active)', () => {
    const files = filesOf({
      '/keys/a.json': JSON.stringify({ activeKeyId: 'k2', keys: [{ id: 'k1', key: K1 }, { id: 'k2', key: K2 }] }),
      '/keys/b.json': JSON.stringify({ keys: [{ id: 'k1', key: K1 }] }),
    });
    expect(ids({ RAGTIME_CODEC_KEY_FILE: '/keys/a.json' }, files)).toEqual({ active: 'k2', ids: ['k1', 'k2'], source: '/keys/a.json', lengths: [32, 32] });
    expect(ids({ RAGTIME_CODEC_KEY_FILE: '/keys/b.json' }, files)?.active).toBe('k1');
  });

  test('neither variable set: RAGTIME_DATA_DIR/codec-keys.json is used when it exists (make demo writes it)', () => {
    const files = filesOf({ '/srv/data/codec-keys.json': JSON.stringify({ keys: [{ id: 'demo', key: K1 }] }) });
    expect(ids({ RAGTIME_DATA_DIR: '/srv/data/' }, files)).toEqual({ active: 'demo', ids: ['demo'], source: '/srv/data/codec-keys.json', lengths: [32] });
    expect(ids({ RAGTIME_DATA_DIR: '/elsewhere' }, files)).toBeNull();
    // Without a file reader (plain parseConfig) the default file is not looked for.
    expect(ids({ RAGTIME_DATA_DIR: '/srv/data' })).toBeNull();
  });

  test('bad keys are reported by variable, entry and id, never by their value', () => {
    const error = configError({ RAGTIME_CODEC_KEYS: `k1:${SHORT},k1:${K1},bad id:${K2},k3:not*base64,nokey` });
    expect(error.code).toBe('INVALID_CONFIG');
    for (const secret of [SHORT, K1, K2]) expect(error.message).not.toContain(secret.slice(0, 10));
    expect(error.message).toMatchInlineSnapshot(
      `"invalid configuration: ✖ RAGTIME_CODEC_KEYS entry 1 (key id "k1") decodes to 16 bytes, not 32 (AES-256); make one with \`ragtime codec-keys generate\` or \`openssl rand -base64 32\` ✖ RAGTIME_CODEC_KEYS entry 3: key id may hold letters, digits and _ . - only ✖ RAGTIME_CODEC_KEYS entry 4 (key id "k3") is not base64; make one with \`ragtime codec-keys generate\` or \`openssl rand -base64 32\` ✖ RAGTIME_CODEC_KEYS entry 5 is not "id:base64key""`,
    );
  });

  test('duplicate key ids are refused', () => {
    expect(configError({ RAGTIME_CODEC_KEYS: `k1:${K1},k1:${K2}` }).message).toContain('key id "k1" appears more than once');
  });

  test('key file problems name the file, never its content', () => {
    const files = filesOf({
      '/k/broken.json': `{"keys": [{"id": "k1", "key": "${K1}"`,
      '/k/wrong.json': JSON.stringify({ activeKeyId: 'k9', keys: [{ id: 'k1', key: K1 }] }),
      '/k/empty.json': JSON.stringify({ keys: [] }),
    });
    const broken = configError({ RAGTIME_CODEC_KEY_FILE: '/k/broken.json' }, files).message;
    expect(broken).toContain('codec key file /k/broken.json is not JSON');
    expect(broken).not.toContain(K1.slice(0, 10));
    expect(configError({ RAGTIME_CODEC_KEY_FILE: '/k/wrong.json' }, files).message).toContain('the active key id "k9" is not one of the keys (k1)');
    expect(configError({ RAGTIME_CODEC_KEY_FILE: '/k/empty.json' }, files).message).toContain('the file lists no keys');
    expect(configError({ RAGTIME_CODEC_KEY_FILE: '/k/missing.json' }, files).message).toContain(
      'RAGTIME_CODEC_KEY_FILE=/k/missing.json: no such file; create it with `ragtime codec-keys generate --file /k/missing.json`',
    );
  });

  test('an unreadable key file is reported with its error code only', () => {
    const files: ConfigFiles = { readText: () => { throw Object.assign(new Error(`EACCES ${K1}`), { code: 'EACCES' }); } };
    const message = configError({ RAGTIME_CODEC_KEY_FILE: '/k/locked.json' }, files).message;
    expect(message).toContain('RAGTIME_CODEC_KEY_FILE /k/locked.json cannot be read (EACCES)');
    expect(message).not.toContain(K1.slice(0, 10));
  });

  test('both variables, or a key file without a file reader, are configuration errors', () => {
    expect(configError({ RAGTIME_CODEC_KEYS: `k1:${K1}`, RAGTIME_CODEC_KEY_FILE: '/k.json' }).message).toContain(
      'RAGTIME_CODEC_KEYS and RAGTIME_CODEC_KEY_FILE are both set: set one of them',
    );
    expect(configError({ RAGTIME_CODEC_KEY_FILE: '/k.json' }).message).toContain('build the config with loadConfig');
  });
});

describe('codec server and OpenTelemetry settings', () => {
  test('defaults: loopback port 8234, the UI origin, no tokens; no exporter, no content', () => {
    const config = parseConfig({});
    expect(config.codecServer).toEqual({ host: '127.0.0.1', port: 8234, allowedOrigins: ['http://127.0.0.1:8233', 'http://localhost:8233'], tokens: [] });
    expect(config.telemetry).toEqual({ exporter: 'none', includeContent: false, otlpTracesUrl: 'http://localhost:4318/v1/traces', serviceName: undefined, metricsAddress: null });
  });

  test('the UI port moves the default origins; tokens are SHA-256 digests', () => {
    const digest = 'A'.repeat(64);
    const config = parseConfig({ TEMPORAL_UI_PORT: '28233', RAGTIME_CODEC_PORT: '28234', RAGTIME_CODEC_TOKENS: `sha256:${digest}, ${'b'.repeat(64)}` });
    expect(config.codecServer).toEqual({
      host: '127.0.0.1',
      port: 28234,
      allowedOrigins: ['http://127.0.0.1:28233', 'http://localhost:28233'],
      tokens: ['a'.repeat(64), 'b'.repeat(64)],
    });
  });

  test('a raw token where a digest belongs is refused without quoting it', () => {
    const message = configError({ RAGTIME_CODEC_TOKENS: 'my-secret-token' }).message;
    expect(message).toContain('RAGTIME_CODEC_TOKENS: entry 1 is not a SHA-256 digest');
    expect(message).not.toContain('my-secret-token');
  });

  test('exporter, content and endpoints', () => {
    expect(parseConfig({ RAGTIME_OTEL_EXPORTER: 'OTLP', RAGTIME_OTEL_CONTENT: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_SERVICE_NAME: 'rt' }).telemetry).toEqual({
      exporter: 'otlp',
      includeContent: true,
      otlpTracesUrl: 'http://collector:4318/v1/traces',
      metricsAddress: null,
      serviceName: 'rt',
    });
    expect(parseConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://x/traces' }).telemetry.otlpTracesUrl).toBe('https://x/traces');
    const message = configError({ RAGTIME_OTEL_EXPORTER: 'jaeger', RAGTIME_OTEL_CONTENT: 'yes', RAGTIME_CODEC_CORS_ORIGINS: 'http://ui:8233/path' }).message;
    expect(message).toContain('RAGTIME_OTEL_EXPORTER="jaeger" is not one of none, console, otlp');
    expect(message).toContain('RAGTIME_OTEL_CONTENT="yes" is not true or false');
    expect(message).toContain('RAGTIME_CODEC_CORS_ORIGINS: "http://ui:8233/path" is not an origin');
  });
});
