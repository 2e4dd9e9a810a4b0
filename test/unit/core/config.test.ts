import { ENV_DEFAULTS, parseConfig, RagConfig } from '../../../core/config';
import { isRagError, type RagError } from '../../../core/errors';

// Expected values follow spec §1 and SuperMew's utils.py; every "Python gives" note was checked with CPython 3.11.

function configError(env: Record<string, string | undefined>): RagError {
  try {
    parseConfig(env);
  } catch (error) {
    if (isRagError(error)) return error;
    throw error;
  }
  throw new Error('expected parseConfig to throw');
}

describe('parseConfig defaults (spec §1, DESIGN.md §6)', () => {
  test('an empty environment gives every default', () => {
    expect(parseConfig({})).toStrictEqual({
      retrieval: { topK: 8, candidateMultiplier: 3, candidateKRaw: '', leafRetrieveLevel: 3 },
      autoMerge: { enabled: true, threshold: 2 },
      rerank: { enabled: false, model: null, endpoint: '', apiKey: null, timeoutSeconds: 5, minScore: 0 },
      temporal: { address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'ragtime', tls: null, apiKey: undefined, uiUrl: 'http://127.0.0.1:8233' },
      milvus: { address: '127.0.0.1:19530', token: undefined, tls: null, collection: 'embeddings_collection', timeoutSeconds: 30 },
      embeddings: { baseUrl: 'http://127.0.0.1:8765/v1', model: 'multilingual-e5-small-q4', dim: 384, msPerText: ENV_DEFAULTS.EMBEDDING_MS_PER_TEXT, concurrency: 1 },
      models: {
        provider: 'auto',
        apiKey: undefined,
        baseUrl: undefined,
        fastModel: undefined,
        gradeModel: undefined,
        answerModel: undefined,
        agentModel: undefined,
        outputMode: 'auto', // issue 24: the ladder from json_schema down
        temperature: undefined, // issue 24: 0, or none for models known to refuse it
        timeoutMs: 45_000, // MODEL_TIMEOUT_SECONDS
        localPort: 8766, // LLM_PORT (issue 34)
        steps: { plan: 'model', grade: 'model', rewrite: 'model', condense: 'model', intent: 'model' }, // MODEL_STEPS (issue 43 §2)
      },
      database: { url: undefined, dataDir: '.data' },
      // AUDIT_INCLUDE_CONTENT: test/unit/core/audit-config.test.ts.
      audit: { includeContent: false },
      // The HTTP API: test/unit/core/api-config.test.ts.
      api: { tokens: [], tokensFile: undefined, operatorTokens: [], port: 8280, host: '127.0.0.1', bodyLimitBytes: 65536, corsOrigins: [] },
      // Payload encryption, the codec server and OpenTelemetry: test/unit/core/codec-config.test.ts.
      // RAGTIME_TENANT, the tenant of the CLI's runs (issue 45 §3): none unless set or recorded by `make demo`.
      tenant: null,
      codec: null,
      codecServer: { host: '127.0.0.1', port: 8234, allowedOrigins: ['http://127.0.0.1:8233', 'http://localhost:8233'], tokens: [] },
      telemetry: { exporter: 'none', includeContent: false, otlpTracesUrl: 'http://localhost:4318/v1/traces', serviceName: undefined, metricsAddress: null },
      // SPECULATION: test/unit/core/speculation-config.test.ts.
      speculation: ENV_DEFAULTS.SPECULATION,
      // ANSWER_CHECK_ACTION: test/unit/core/answer-check.test.ts.
      answerCheck: 'warn',
      // SESSION_TURNS: test/unit/core/conversation-turns.test.ts.
      conversation: { sessionTurns: 6 },
      retention: { days: null, housekeeping: true },
      log: { stacks: false },
      // The settings file and where each setting came from: test/unit/core/local-settings.test.ts.
      settings: { file: '.data/settings.env', found: false, recorded: {}, used: expect.any(Array) },
    });
  });

  test('the result is a valid RagConfig', () => {
    const config = parseConfig({ RERANK_MODEL: 'm', RERANK_BINDING_HOST: 'https://h', RERANK_API_KEY: 'k' });
    expect(RagConfig.parse(config)).toStrictEqual(config);
  });

  test('U03 SuperMew .env.example values → rerank disabled, endpoint "" (spec §6.6.1); candidate K "30"', () => {
    const config = parseConfig({
      ARK_API_KEY: 'your_ark_api_key',
      FAST_MODEL: 'your_fast_model_name',
      BASE_URL: 'https://your-llm-endpoint/v1',
      EMBEDDING_MODEL: 'BAAI/bge-m3',
      DENSE_EMBEDDING_DIM: '1024',
      RERANK_MODEL: 'your_rerank_model',
      RERANK_BINDING_HOST: 'https://your-rerank-host',
      RERANK_API_KEY: 'your_rerank_api_key',
      RERANK_TIMEOUT_SECONDS: '5',
      RETRIEVAL_TOP_K: '8',
      RETRIEVAL_CANDIDATE_K: '30',
      RETRIEVAL_CANDIDATE_MULTIPLIER: '3',
      AUTO_MERGE_ENABLED: 'true',
      AUTO_MERGE_THRESHOLD: '2',
      LEAF_RETRIEVE_LEVEL: '3',
      RERANK_MIN_SCORE: '0.0',
      MILVUS_HOST: '127.0.0.1',
      MILVUS_PORT: '19530',
      MILVUS_TIMEOUT: '30',
    });
    const { rerank, retrieval, embeddings } = config;
    expect(rerank).toMatchObject({ enabled: false, model: null, endpoint: '', apiKey: null, timeoutSeconds: 5 });
    expect(retrieval).toStrictEqual({ topK: 8, candidateMultiplier: 3, candidateKRaw: '30', leafRetrieveLevel: 3 });
    expect(embeddings).toStrictEqual({ baseUrl: ENV_DEFAULTS.EMBEDDING_BASE_URL, model: 'BAAI/bge-m3', dim: 1024, msPerText: ENV_DEFAULTS.EMBEDDING_MS_PER_TEXT, concurrency: 1 });
    // Only the rerank variables have a placeholder filter (spec §6.6.1); model placeholders stay.
    expect(config.models.fastModel).toBe('your_fast_model_name');
  });
});

describe('lenient numbers: unparsable → default (spec §1)', () => {
  // Deliberate deviation: Python's float() gives inf / nan / -inf (→ 0.1 after the clamp) for the last four;
  // non-finite numbers cannot travel in JSON (traces, histories), so they fall back to the default.
  test.each([
    [undefined, 5], ['', 5], ['abc', 5], ['3', 3], ['  2.5 ', 2.5], ['1e1', 10], ['1_0.5', 10.5],
    ['1e-3', 0.1], ['0', 0.1], ['-3', 0.1], // clamped to ≥ 0.1
    ['inf', 5], ['nan', 5], ['-inf', 5], ['1e400', 5],
  ])('RERANK_TIMEOUT_SECONDS %j → %d', (raw, expected) => {
    expect(parseConfig({ RERANK_TIMEOUT_SECONDS: raw }).rerank.timeoutSeconds).toBe(expected);
  });

  test.each([
    [undefined, 0], ['', 0], ['abc', 0], ['1,5', 0], ['0.1', 0.1], ['2', 2], ['1e-2', 0.01], ['.5', 0.5], ['1.', 1],
    [' -0.5 ', -0.5], // no clamping
    ['infinity', 0], // deliberate deviation (see above): Python gives inf
  ])('RERANK_MIN_SCORE %j → %d', (raw, expected) => {
    expect(parseConfig({ RERANK_MIN_SCORE: raw }).rerank.minScore).toBe(expected);
  });

  test.each([
    [undefined, 8], ['', 8], ['   ', 8], ['abc', 8], ['3.0', 8], ['1e1', 8], // int() raises
    ['3', 3], [' 3 ', 3], ['\t3\n', 3], ['+3', 3], ['007', 7], ['1_0', 10],
    ['-2', 1], ['0', 1], // clamped to ≥ 1
    ['\x1c5', 8], // str.strip() removes \x1c, but int() does not accept it
    ['\u30005', 5], // int() accepts Unicode whitespace such as the ideographic space
  ])('RETRIEVAL_TOP_K %j → %d', (raw, expected) => {
    expect(parseConfig({ RETRIEVAL_TOP_K: raw }).retrieval.topK).toBe(expected);
  });

  test.each([
    [undefined, 3], ['', 3], ['2.5', 3], ['5', 5], ['0', 1], ['-1', 1],
  ])('RETRIEVAL_CANDIDATE_MULTIPLIER %j → %d', (raw, expected) => {
    expect(parseConfig({ RETRIEVAL_CANDIDATE_MULTIPLIER: raw }).retrieval.candidateMultiplier).toBe(expected);
  });

  test.each([
    [undefined, ''], ['', ''], [' 30 ', '30'],
    ['abc', 'abc'], // kept raw: spec §6.2 reports it per retrieval
    ['\x1c30\x85', '30'], // Python's str.strip() set…
    ['\ufeff30', '\ufeff30'], // …which does not include the BOM
  ])('RETRIEVAL_CANDIDATE_K %j → raw %j', (raw, expected) => {
    expect(parseConfig({ RETRIEVAL_CANDIDATE_K: raw }).retrieval.candidateKRaw).toBe(expected);
  });
});

describe('auto-merge and leaf level (spec §1)', () => {
  test.each([
    [undefined, true], ['true', true], ['false', false], ['FALSE', false], ['False', false],
    [' false', true], ['false ', true], // not stripped: only the exact lower-cased value "false" disables
    ['', true], ['0', true], ['no', true], ['off', true],
  ])('AUTO_MERGE_ENABLED %j → %s', (raw, expected) => {
    expect(parseConfig({ AUTO_MERGE_ENABLED: raw }).autoMerge.enabled).toBe(expected);
  });

  test.each([
    [undefined, 2], ['3', 3], [' 4 ', 4], ['+5', 5], ['1', 1],
    ['0', 0], ['-1', -1], // not clamped: ≤ 1 merges every child whose parent exists
  ])('AUTO_MERGE_THRESHOLD %j → %d', (raw, expected) => {
    expect(parseConfig({ AUTO_MERGE_THRESHOLD: raw }).autoMerge.threshold).toBe(expected);
  });

  test.each([
    [undefined, 3], ['2', 2], ['-1', -1], [' 1 ', 1],
  ])('LEAF_RETRIEVE_LEVEL %j → %d', (raw, expected) => {
    expect(parseConfig({ LEAF_RETRIEVE_LEVEL: raw }).retrieval.leafRetrieveLevel).toBe(expected);
  });

  // The original crashes at import on these (a plain int()), a set-but-blank value included.
  test.each(['AUTO_MERGE_THRESHOLD', 'LEAF_RETRIEVE_LEVEL'])('%s invalid → INVALID_CONFIG', (name) => {
    for (const raw of ['', ' ', 'two', '2.0', '1e1', '0x2']) {
      const error = configError({ [name]: raw });
      expect(error.code).toBe('INVALID_CONFIG');
      expect(error.message).toContain(`${name}=${JSON.stringify(raw)} is not an integer`);
    }
  });
});

describe("ragtime's services (DESIGN.md §6)", () => {
  test.each([
    [{}, '127.0.0.1:19530'],
    [{ MILVUS_HOST: 'milvus' }, 'milvus:19530'],
    [{ MILVUS_PORT: '19531' }, '127.0.0.1:19531'],
    [{ MILVUS_HOST: ' db ', MILVUS_PORT: ' 1 ' }, 'db:1'],
    [{ MILVUS_HOST: '' }, '127.0.0.1:19530'], // blank means unset
    [{ MILVUS_ADDRESS: 'https://z:443', MILVUS_HOST: 'h', MILVUS_PORT: 'unused, so unchecked' }, 'https://z:443'],
  ])('Milvus address from %j → %s', (env, address) => {
    expect(parseConfig(env).milvus.address).toBe(address);
  });

  test.each([
    [undefined, 30], ['10', 10], [' 2.5 ', 2.5], ['1e1', 10],
  ])('MILVUS_TIMEOUT %j → %d', (raw, expected) => {
    expect(parseConfig({ MILVUS_TIMEOUT: raw }).milvus.timeoutSeconds).toBe(expected);
  });

  test('service names, trimmed, blank → default', () => {
    const config = parseConfig({
      TEMPORAL_ADDRESS: ' temporal:7233 ',
      TEMPORAL_NAMESPACE: '',
      TEMPORAL_TASK_QUEUE: 'rag-q',
      MILVUS_COLLECTION: 'kb',
      MILVUS_TOKEN: 'root:Milvus',
      EMBEDDING_MODEL: '  ',
      DATABASE_URL: 'postgresql://u:p@127.0.0.1/rag',
    });
    expect(config.temporal).toStrictEqual({ address: 'temporal:7233', namespace: 'default', taskQueue: 'rag-q', tls: null, apiKey: undefined, uiUrl: 'http://127.0.0.1:8233' });
    expect(config.milvus).toMatchObject({ collection: 'kb', token: 'root:Milvus' });
    expect(config.embeddings.model).toBe(ENV_DEFAULTS.EMBEDDING_MODEL);
    expect(config.database.url).toBe('postgresql://u:p@127.0.0.1/rag');
  });

  test.each([
    [{ EMBEDDING_DIM: '768' }, 768],
    [{ DENSE_EMBEDDING_DIM: '1024' }, 1024], // the original's name, as a fallback
    [{ EMBEDDING_DIM: '768', DENSE_EMBEDDING_DIM: '1024' }, 768],
    [{ EMBEDDING_DIM: ' ', DENSE_EMBEDDING_DIM: '1024' }, 1024],
    [{ EMBEDDING_DIM: '768', DENSE_EMBEDDING_DIM: 'junk' }, 768], // an unused fallback is not checked
  ])('embedding dimension from %j → %d', (env, dim) => {
    expect(parseConfig(env).embeddings.dim).toBe(dim);
  });

  test('EMBEDDING_MS_PER_TEXT (issue 14 §5: sizes the embedding request timeouts): a positive number of ms', () => {
    expect(parseConfig({ EMBEDDING_MS_PER_TEXT: ' 2500 ' }).embeddings.msPerText).toBe(2500);
    expect(() => parseConfig({ EMBEDDING_MS_PER_TEXT: '0' })).toThrow(
      'EMBEDDING_MS_PER_TEXT="0" is not a positive number of milliseconds: set one, or unset it to use the default ' + ENV_DEFAULTS.EMBEDDING_MS_PER_TEXT,
    );
  });

  test('EMBEDDING_CONCURRENCY (issue 17 §4: embedding requests one ingested file keeps in flight): 1 by default, 1–16', () => {
    expect(parseConfig({}).embeddings.concurrency).toBe(1);
    expect(parseConfig({ EMBEDDING_CONCURRENCY: '4' }).embeddings.concurrency).toBe(4);
    for (const bad of ['0', '17', '2.5']) {
      expect(() => parseConfig({ EMBEDDING_CONCURRENCY: bad })).toThrow(`EMBEDDING_CONCURRENCY="${bad}" is not a whole number of requests from 1 to 16`);
    }
  });

  test.each([
    [{ OPENAI_API_KEY: 'sk-a', ARK_API_KEY: 'ark-b' }, 'sk-a'],
    [{ ARK_API_KEY: ' ark-b\n' }, 'ark-b'],
    [{ OPENAI_API_KEY: '', ARK_API_KEY: 'ark-b' }, 'ark-b'],
    [{}, undefined],
  ])('API key from %j → %j', (env, apiKey) => {
    expect(parseConfig(env).models.apiKey).toBe(apiKey);
  });

  test('MODEL_OUTPUT_MODE and MODEL_TEMPERATURE (issue 24): parsed, and a bad value reported with its fix', () => {
    expect(parseConfig({ MODEL_OUTPUT_MODE: ' Tools ', MODEL_TEMPERATURE: '0.3' }).models).toMatchObject({ outputMode: 'tools', temperature: 0.3 });
    expect(parseConfig({ MODEL_TEMPERATURE: '0' }).models.temperature).toBe(0);
    expect(() => parseConfig({ MODEL_OUTPUT_MODE: 'json', MODEL_TEMPERATURE: 'hot' })).toThrow(
      /MODEL_OUTPUT_MODE="json" is not one of auto, json_schema, tools, json_object, prompt[\s\S]*MODEL_TEMPERATURE="hot" is not a number from 0 to 2/,
    );
    expect(() => parseConfig({ MODEL_TEMPERATURE: '3' })).toThrow(/MODEL_TEMPERATURE="3" is not a number from 0 to 2/);
  });

  test('model names and base URL, with the original names as fallbacks', () => {
    const config = parseConfig({ BASE_URL: 'https://ark.example/v3', FAST_MODEL: 'f', GRADE_MODEL: ' g ', MODEL: '' });
    expect(config.models).toStrictEqual({
      provider: 'auto',
      apiKey: undefined,
      baseUrl: 'https://ark.example/v3',
      fastModel: 'f',
      gradeModel: 'g',
      answerModel: 'g', // ANSWER_MODEL unset: the grader's model writes answers
      agentModel: undefined, // blank means unset, as the original's "if not model" check treats it
      outputMode: 'auto',
      temperature: undefined,
      timeoutMs: 45_000,
      localPort: 8766,
      steps: { plan: 'model', grade: 'model', rewrite: 'model', condense: 'model', intent: 'model' },
    });
    expect(parseConfig({ GRADE_MODEL: 'g', ANSWER_MODEL: ' a ' }).models.answerModel).toBe('a');
    expect(parseConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', BASE_URL: 'x' }).models.baseUrl).toBe(
      'http://127.0.0.1:9/v1',
    );
  });
});

describe('MODEL_PROVIDER (issue 5: openai | offline; unset → auto)', () => {
  const ready = { OPENAI_API_KEY: 'sk-test', FAST_MODEL: 'f', GRADE_MODEL: 'g' };

  test.each([
    [{}, 'auto'],
    [{ MODEL_PROVIDER: '' }, 'auto'],
    [{ MODEL_PROVIDER: ' offline ' }, 'offline'],
    [{ MODEL_PROVIDER: 'OpenAI', ...ready }, 'openai'],
    [{ MODEL_PROVIDER: 'openai', ...ready, OPENAI_API_KEY: '', ARK_API_KEY: 'ark' }, 'openai'],
    [{ MODEL_PROVIDER: 'offline', ...ready }, 'offline'],
  ])('%j → %j', (env, provider) => {
    expect(parseConfig(env).models.provider).toBe(provider);
  });

  test('an unknown provider names the allowed values', () => {
    expect(configError({ MODEL_PROVIDER: 'anthropic' }).message).toMatchInlineSnapshot(`"invalid configuration: ✖ MODEL_PROVIDER="anthropic" is not one of openai, offline, local: set one, or unset it to choose automatically"`);
  });

  test('MODEL_PROVIDER=openai without key or models names exactly what is missing, never a secret', () => {
    expect(configError({ MODEL_PROVIDER: 'openai' }).message).toMatchInlineSnapshot(
      `"invalid configuration: ✖ MODEL_PROVIDER=openai needs OPENAI_API_KEY, FAST_MODEL, GRADE_MODEL: set them, or set MODEL_PROVIDER=offline"`,
    );
    const error = configError({ MODEL_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-SECRET', FAST_MODEL: 'f', GRADE_MODEL: ' ' });
    expect(error.message).toMatchInlineSnapshot(
      `"invalid configuration: ✖ MODEL_PROVIDER=openai needs GRADE_MODEL: set it, or set MODEL_PROVIDER=offline"`,
    );
    expect(error.message).not.toContain('sk-SECRET');
  });
});

describe('invalid configuration → one RagError INVALID_CONFIG', () => {
  test('a single problem names the variable, the value, the rule and the fix', () => {
    const error = configError({ AUTO_MERGE_THRESHOLD: 'two' });
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.terminal).toBe(true);
    expect(error.message).toMatchInlineSnapshot(`"invalid configuration: ✖ AUTO_MERGE_THRESHOLD="two" is not an integer: set one, or unset it to use the default 2"`);
  });

  test('every problem is reported at once', () => {
    const error = configError({
      LEAF_RETRIEVE_LEVEL: '',
      MILVUS_PORT: '70000',
      MILVUS_TIMEOUT: '0',
      EMBEDDING_BASE_URL: '127.0.0.1:8765',
      DENSE_EMBEDDING_DIM: 'abc',
      BASE_URL: 'ark endpoint',
    });
    expect(error.message.split(' ✖ ')).toMatchInlineSnapshot(`
[
  "invalid configuration:",
  "LEAF_RETRIEVE_LEVEL="" is not an integer: set one, or unset it to use the default 3",
  "MILVUS_PORT="70000" is not a port number (1-65535): set one, or unset it to use the default 19530",
  "MILVUS_TIMEOUT="0" is not a positive number of seconds: set one, or unset it to use the default 30",
  "EMBEDDING_BASE_URL="127.0.0.1:8765" is not an http(s) URL: set one, or unset it to use the default http://127.0.0.1:8765/v1",
  "DENSE_EMBEDDING_DIM="abc" is not a positive integer: set one, or unset it to use the default 384",
  "BASE_URL="ark endpoint" is not an http(s) URL: set one such as https://api.openai.com/v1, or unset it",
]
`);
  });

  test.each([
    ['EMBEDDING_DIM', '0'], ['EMBEDDING_DIM', '3.5'], ['EMBEDDING_DIM', '-5'],
    ['MILVUS_PORT', 'abc'], ['MILVUS_PORT', '0'],
    ['MILVUS_TIMEOUT', ''], ['MILVUS_TIMEOUT', 'abc'], ['MILVUS_TIMEOUT', '-1'], ['MILVUS_TIMEOUT', 'inf'],
    ['OPENAI_BASE_URL', 'ftp://x'], ['EMBEDDING_BASE_URL', 'localhost:8765'],
  ])('%s=%j → INVALID_CONFIG naming it', (name, raw) => {
    const error = configError({ [name]: raw });
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toContain(`${name}=${JSON.stringify(raw)} is not`);
  });

  test('secrets never appear in an error message', () => {
    const secrets = {
      OPENAI_API_KEY: 'sk-live-SECRET-1',
      ARK_API_KEY: 'ark-SECRET-2',
      RERANK_API_KEY: 'jina_SECRET-3',
      MILVUS_TOKEN: 'root:SECRET-4',
      DATABASE_URL: 'postgresql://app:SECRET-5@db/rag',
    };
    const error = configError({
      ...secrets,
      EMBEDDING_DIM: 'abc',
      OPENAI_BASE_URL: 'https://user:SECRET-6@not a url',
    });
    expect(error.message).toContain('EMBEDDING_DIM');
    expect(error.message).toContain('OPENAI_BASE_URL="https://***@not a url"');
    expect(error.message).not.toMatch(/SECRET/);
  });

  test('long values are cut in the message', () => {
    expect(configError({ EMBEDDING_DIM: 'x'.repeat(500) }).message).toContain(`"${'x'.repeat(60)}…"`);
  });
});

describe('retention settings (issue 35 §1)', () => {
  test('RAGTIME_RETENTION_DAYS is a whole number of days; RAGTIME_HOUSEKEEPING true or false', () => {
    expect(parseConfig({ RAGTIME_RETENTION_DAYS: '30', RAGTIME_HOUSEKEEPING: 'false' }).retention).toEqual({ days: 30, housekeeping: false });
    for (const bad of ['0', '-3', '1.5', 'forever']) expect(() => parseConfig({ RAGTIME_RETENTION_DAYS: bad })).toThrow(/RAGTIME_RETENTION_DAYS/);
    expect(() => parseConfig({ RAGTIME_HOUSEKEEPING: 'off' })).toThrow(/RAGTIME_HOUSEKEEPING/);
  });
});

describe('MODEL_PROVIDER=local (issue 34)', () => {
  test('the OpenAI adapter on the local model service: LLM_PORT, the local model for every role, no key needed, a longer timeout', () => {
    const { models } = parseConfig({ MODEL_PROVIDER: 'local', LLM_PORT: '18766' });
    expect(models).toMatchObject({
      provider: 'local',
      apiKey: 'local',
      baseUrl: 'http://127.0.0.1:18766/v1',
      fastModel: 'qwen2.5-coder-1.5b-instruct',
      gradeModel: 'qwen2.5-coder-1.5b-instruct',
      answerModel: 'qwen2.5-coder-1.5b-instruct',
      timeoutMs: 300_000,
      localPort: 18766,
    });
  });
  test('settings set explicitly win; MODEL_TIMEOUT_SECONDS is a positive number of seconds; hosted APIs keep 45 s', () => {
    expect(parseConfig({ MODEL_PROVIDER: 'local', GRADE_MODEL: 'bigger', OPENAI_BASE_URL: 'http://10.0.0.5:8080/v1', MODEL_TIMEOUT_SECONDS: '90' }).models).toMatchObject({
      baseUrl: 'http://10.0.0.5:8080/v1',
      fastModel: 'qwen2.5-coder-1.5b-instruct',
      gradeModel: 'bigger',
      answerModel: 'bigger',
      timeoutMs: 90_000,
    });
    expect(parseConfig({}).models.timeoutMs).toBe(45_000);
    expect(() => parseConfig({ MODEL_TIMEOUT_SECONDS: 'soon' })).toThrow(/MODEL_TIMEOUT_SECONDS/);
    // No call may outlast its activity's backstop (10 minutes): the call's own timeout must be the one that fires.
    expect(parseConfig({ MODEL_TIMEOUT_SECONDS: '540' }).models.timeoutMs).toBe(540_000);
    expect(() => parseConfig({ MODEL_TIMEOUT_SECONDS: '900' })).toThrow(/MODEL_TIMEOUT_SECONDS="900" is not a positive number of seconds up to 540 \(a model activity's backstop is 10 minutes\)/);
    expect(() => parseConfig({ MODEL_PROVIDER: 'llama' })).toThrow(/one of openai, offline, local/);
    // One model, one call at a time: no speculation unless asked for.
    expect([parseConfig({ MODEL_PROVIDER: 'local' }).speculation, parseConfig({ MODEL_PROVIDER: 'local', SPECULATION: 'grade' }).speculation, parseConfig({}).speculation]).toEqual(['off', 'grade', 'answer']);
  });
});
