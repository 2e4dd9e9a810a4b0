/**
 * One configuration for every process (issue 33 §1): the environment, then the data dir's settings file
 * (RAGTIME_DATA_DIR/settings.env, written by scripts/services.sh), then the default; addresses derived from the
 * *_PORT variables. Pure: the settings file is handed to parseConfig through an in-memory `files`.
 */
import { parseConfig } from '../../../core/config';
import { isRagError } from '../../../core/errors';
import { parseSettingsFile, settingsMismatches } from '../../../core/settings/local-settings';
import { workerKbOf, workerKbSuffix } from '../../../core/settings/worker-identity';

/** `files` for parseConfig holding only the given files (null for any other path: no such file). */
const filesOf = (contents: Record<string, string>) => ({ readText: (path: string) => contents[path] ?? null });

const DATA = '/repo/.data';
/** A settings file as `make demo` with every port moved leaves it (the ports of the fresh clone). */
const MOVED = [
  '# Written by scripts/services.sh',
  'TEMPORAL_PORT=17233',
  'TEMPORAL_UI_PORT=18233',
  'MILVUS_PORT=29530',
  'EMBEDDINGS_PORT=18765',
  'POSTGRES_PORT=15433',
  'CODEC_PORT=18234',
  'RAGTIME_API_PORT=18280',
  'RAGTIME_KB=ragtime_demo_kb',
  '',
].join('\n');
const withFile = (text: string) => filesOf({ [`${DATA}/settings.env`]: text });

const used = (config: ReturnType<typeof parseConfig>) =>
  Object.fromEntries(config.settings.used.map((use) => [use.name, [use.value, use.source, use.from]]));

describe('the *_PORT variables in the environment, no settings file', () => {
  test('each address follows its port, as scripts/env.sh derives it', () => {
    const config = parseConfig({ TEMPORAL_PORT: '17233', TEMPORAL_UI_PORT: '18233', MILVUS_PORT: '29530', EMBEDDINGS_PORT: '18765', CODEC_PORT: '18234', RAGTIME_API_PORT: '18280' });
    expect([config.temporal.address, config.temporal.uiUrl, config.milvus.address, config.embeddings.baseUrl, config.codecServer.port, config.api.port]).toEqual([
      '127.0.0.1:17233', 'http://127.0.0.1:18233', '127.0.0.1:29530', 'http://127.0.0.1:18765/v1', 18234, 18280,
    ]);
    // The codec server lets the UI of the moved port in.
    expect(config.codecServer.allowedOrigins).toEqual(['http://127.0.0.1:18233', 'http://localhost:18233']);
  });

  test('an address set itself wins over its port', () => {
    const config = parseConfig({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_PORT: '17233', EMBEDDING_BASE_URL: 'http://e:1/v1', EMBEDDINGS_PORT: '18765', RAGTIME_CODEC_PORT: '9', CODEC_PORT: '18234' });
    expect([config.temporal.address, config.embeddings.baseUrl, config.codecServer.port]).toEqual(['temporal:7233', 'http://e:1/v1', 9]);
  });

  test('TEMPORAL_UI_URL set empty: no UI to link to (a cluster without one), not the dev server\'s on the default port', () => {
    expect(parseConfig({ TEMPORAL_UI_URL: '' }).temporal.uiUrl).toBeNull();
    expect(parseConfig({ TEMPORAL_UI_URL: ' ', TEMPORAL_UI_PORT: '18233' }).temporal.uiUrl).toBeNull();
    expect(parseConfig({}).temporal.uiUrl).toBe('http://127.0.0.1:8233');
  });

  test('a port that is not one: INVALID_CONFIG naming it, nothing derived from it', () => {
    let message = '';
    try {
      parseConfig({ TEMPORAL_PORT: 'abc', EMBEDDINGS_PORT: '70000' });
    } catch (error) {
      if (!isRagError(error)) throw error;
      message = error.message;
    }
    expect(message).toContain('TEMPORAL_PORT="abc" is not a port number (1-65535): set one, or unset it to use the default 7233');
    expect(message).toContain('EMBEDDINGS_PORT="70000" is not a port number (1-65535): set one, or unset it to use the default 8765');
  });
});

describe('precedence: environment > settings file > default', () => {
  test('a fresh shell (nothing exported) reads every port and the knowledge base from the settings file', () => {
    const config = parseConfig({ RAGTIME_DATA_DIR: DATA }, withFile(MOVED));
    expect([config.temporal.address, config.milvus.address, config.embeddings.baseUrl, config.milvus.collection, config.api.port]).toEqual([
      '127.0.0.1:17233', '127.0.0.1:29530', 'http://127.0.0.1:18765/v1', 'ragtime_demo_kb', 18280,
    ]);
    expect(config.settings).toMatchObject({ file: `${DATA}/settings.env`, found: true, recorded: { TEMPORAL_PORT: '17233', RAGTIME_KB: 'ragtime_demo_kb' } });
    expect(used(config)).toMatchObject({
      TEMPORAL_ADDRESS: ['127.0.0.1:17233', 'settings file', 'TEMPORAL_PORT=17233'],
      MILVUS_ADDRESS: ['127.0.0.1:29530', 'settings file', 'MILVUS_PORT=29530'],
      RAGTIME_KB: ['ragtime_demo_kb', 'settings file', 'RAGTIME_KB=ragtime_demo_kb'],
      TEMPORAL_TASK_QUEUE: ['ragtime', 'default', null],
      RAGTIME_DATA_DIR: [DATA, 'environment', `RAGTIME_DATA_DIR=${DATA}`],
    });
  });

  test('a variable of the environment shadows the file: its own port, its address, MILVUS_COLLECTION over RAGTIME_KB', () => {
    const config = parseConfig({ RAGTIME_DATA_DIR: DATA, TEMPORAL_PORT: '7233', MILVUS_ADDRESS: 'milvus:19530', MILVUS_COLLECTION: 'mine' }, withFile(MOVED));
    expect([config.temporal.address, config.milvus.address, config.milvus.collection, config.embeddings.baseUrl]).toEqual([
      '127.0.0.1:7233', 'milvus:19530', 'mine', 'http://127.0.0.1:18765/v1',
    ]);
    expect(used(config)).toMatchObject({
      TEMPORAL_ADDRESS: ['127.0.0.1:7233', 'environment', 'TEMPORAL_PORT=7233'],
      MILVUS_ADDRESS: ['milvus:19530', 'environment', 'MILVUS_ADDRESS=milvus:19530'],
      RAGTIME_KB: ['mine', 'environment', 'MILVUS_COLLECTION=mine'],
      EMBEDDING_BASE_URL: ['http://127.0.0.1:18765/v1', 'settings file', 'EMBEDDINGS_PORT=18765'],
    });
  });

  test('nothing recorded: the defaults, the spec\'s knowledge base among them', () => {
    const config = parseConfig({ RAGTIME_DATA_DIR: DATA }, filesOf({}));
    expect(config.settings).toMatchObject({ found: false, recorded: {} });
    expect(used(config)).toMatchObject({
      TEMPORAL_ADDRESS: ['127.0.0.1:7233', 'default', null],
      RAGTIME_KB: ['embeddings_collection', 'default', null],
    });
  });

  test('without file access (a pure caller) the settings file is not read', () => {
    expect(parseConfig({ RAGTIME_DATA_DIR: DATA }).milvus.collection).toBe('embeddings_collection');
  });

  test('the CLI\'s default data dir (the checkout\'s .data/) is where the file is looked for, and is shown as a default', () => {
    const config = parseConfig({}, withFile(MOVED), { defaultDataDir: DATA });
    expect(config.temporal.address).toBe('127.0.0.1:17233');
    expect(used(config).RAGTIME_DATA_DIR).toEqual([DATA, 'default', null]);
  });
});

describe('the settings file', () => {
  test('comments and blank lines are skipped; a stray line, an unknown name or a bad port is reported with its line', () => {
    const text = '# c\n\nTEMPORAL_PORT=17233\nnot a line\nOPENAI_API_KEY=sk-x\nMILVUS_PORT=0\n';
    expect(parseSettingsFile(text, 'f')).toEqual({
      recorded: { TEMPORAL_PORT: '17233' },
      problems: [
        'f line 4 is not NAME=value: fix it, or remove the file to use the defaults',
        'f line 5: OPENAI_API_KEY is not a setting the file records (TEMPORAL_PORT, TEMPORAL_UI_PORT, MILVUS_PORT, EMBEDDINGS_PORT, POSTGRES_PORT, CODEC_PORT, RAGTIME_API_PORT, RAGTIME_KB, RAGTIME_TENANT): set it in the environment instead',
        'f line 6: MILVUS_PORT="0" is not a port number (1-65535): fix the line, or remove it',
      ],
    });
  });

  test('issue 45 §3 RAGTIME_TENANT, as `make demo` records its console\'s: the tenant of the CLI\'s runs; the environment wins', () => {
    const demo = parseConfig({ RAGTIME_DATA_DIR: DATA }, withFile(`${MOVED}RAGTIME_TENANT=demo\n`));
    expect([demo.tenant, used(demo).RAGTIME_TENANT]).toEqual(['demo', ['demo', 'settings file', 'RAGTIME_TENANT=demo']]);
    const mine = parseConfig({ RAGTIME_DATA_DIR: DATA, RAGTIME_TENANT: 'acme' }, withFile(`${MOVED}RAGTIME_TENANT=demo\n`));
    expect([mine.tenant, used(mine).RAGTIME_TENANT]).toEqual(['acme', ['acme', 'environment', 'RAGTIME_TENANT=acme']]);
    // Nothing recorded, nothing set: the CLI's runs belong to no tenant, as before.
    const none = parseConfig({ RAGTIME_DATA_DIR: DATA }, withFile(MOVED));
    expect([none.tenant, used(none).RAGTIME_TENANT]).toEqual([null, ['(none)', 'default', null]]);
    expect(() => parseConfig({ RAGTIME_TENANT: 'a b' })).toThrow('RAGTIME_TENANT="a b" is not a tenant name: tenant name may hold letters, digits and _ . - only; set the tenant of your API token, or unset it');
  });

  test('a broken file makes the configuration invalid, naming the file', () => {
    expect(() => parseConfig({ RAGTIME_DATA_DIR: DATA }, withFile('TEMPORAL_PORT=x\n'))).toThrow(`${DATA}/settings.env line 1: TEMPORAL_PORT="x" is not a port number`);
  });
});

describe('what doctor compares (issue 33 §1)', () => {
  const recorded = (text: string) => parseConfig({ RAGTIME_DATA_DIR: DATA }, withFile(text)).settings;

  test('a shell that exported the default ports while the services were started on moved ones: Temporal and embeddings differ', () => {
    expect(settingsMismatches(recorded(MOVED), { temporal: '127.0.0.1:7233', milvus: '127.0.0.1:29530', embeddings: 'http://127.0.0.1:8765/v1/' })).toEqual([
      { kind: 'temporal', configured: '127.0.0.1:7233', recorded: '127.0.0.1:17233', variables: 'TEMPORAL_ADDRESS, TEMPORAL_PORT' },
      { kind: 'embeddings', configured: 'http://127.0.0.1:8765/v1', recorded: 'http://127.0.0.1:18765/v1', variables: 'EMBEDDING_BASE_URL, EMBEDDINGS_PORT' },
    ]);
  });

  test('the same addresses, or nothing recorded: no mismatch', () => {
    expect(settingsMismatches(recorded(MOVED), { temporal: '127.0.0.1:17233', milvus: '127.0.0.1:29530', embeddings: 'http://127.0.0.1:18765/v1' })).toEqual([]);
    expect(settingsMismatches(recorded(''), { temporal: 'anywhere:1', milvus: 'x:2', embeddings: 'http://y/v1' })).toEqual([]);
  });

  test('a worker names its default knowledge base in its identity; one of an earlier ragtime names none', () => {
    expect(workerKbOf(`123@host${workerKbSuffix('ragtime_demo_kb')}`)).toBe('ragtime_demo_kb');
    expect(workerKbOf('123@host')).toBeNull();
  });
});
