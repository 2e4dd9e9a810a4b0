import {
  cleanRerankSetting,
  rerankEndpoint,
  resolveRerankSettings,
} from '../../../core/retrieval/rerank-config';

// The three rerank lines of SuperMew's .env.example (spec §6.6.1).
const ENV_EXAMPLE = {
  model: 'your_rerank_model',
  host: 'https://your-rerank-host',
  apiKey: 'your_rerank_api_key',
};
const NUMBERS = { timeoutSeconds: 5, minScore: 0 };

describe('rerank placeholders, enablement and endpoint (spec §6.6.1)', () => {
  test('U03 .env.example placeholders → rerank disabled, endpoint ""', () => {
    expect(resolveRerankSettings({ ...ENV_EXAMPLE, ...NUMBERS })).toStrictEqual({
      enabled: false,
      model: null,
      endpoint: '', // the host is a placeholder too, so no endpoint
      apiKey: null,
      timeoutSeconds: 5,
      minScore: 0,
    });
  });

  test.each([
    ['https://h/', 'https://h/v1/rerank'],
    ['https://h/v1/rerank/', 'https://h/v1/rerank'],
    ['https://h/v1', 'https://h/v1/v1/rerank'],
  ])('U04 host %j → endpoint %j', (host, endpoint) => {
    expect(rerankEndpoint(host)).toBe(endpoint);
  });

  test.each([
    ['https://h', 'https://h/v1/rerank'],
    ['https://h///', 'https://h/v1/rerank'], // Python rstrip("/") removes every trailing slash
    ['  https://h/v1/rerank  ', 'https://h/v1/rerank'],
    ['https://h/V1/Rerank', 'https://h/V1/Rerank/v1/rerank'], // the suffix test is case-sensitive
    ['https://h/api/v1/rerank', 'https://h/api/v1/rerank'],
  ])('endpoint of host %j → %j', (host, endpoint) => {
    expect(rerankEndpoint(host)).toBe(endpoint);
  });

  test.each([null, undefined, ''])('no host (%j) → endpoint ""', (host) => {
    expect(rerankEndpoint(host)).toBe('');
  });

  test.each([
    // [raw, cleaned] — placeholder rules of spec §6.6.1
    [undefined, null],
    ['', null],
    ['   ', null],
    ['\x1c\x85', null], // Python's str.strip() also removes these
    ['your_rerank_model', null],
    ['YOUR_MODEL', null], // compared lower-cased
    ['your-key', null],
    ['Replace-With-a-key', null],
    ['https://your-rerank-host', null], // contains your-rerank
    ['my_your_rerank_thing', null], // contains your_rerank
    ['  jina-reranker-v2  ', 'jina-reranker-v2'], // trimmed
    ['yours', 'yours'], // "your" without _ or - is a real value
    ['https://api.jina.ai', 'https://api.jina.ai'],
    ['sk-your-key', 'sk-your-key'], // "your-" only counts as a prefix
    ['\ufeffkey', '\ufeffkey'], // Python's strip keeps a BOM; so do we
  ])('cleanRerankSetting(%j) → %j', (raw, cleaned) => {
    expect(cleanRerankSetting(raw)).toBe(cleaned);
  });

  test.each([
    ['model', { host: 'https://h', apiKey: 'k' }],
    ['host', { model: 'm', apiKey: 'k' }],
    ['api key', { model: 'm', host: 'https://h' }],
  ])('missing %s → disabled', (_missing, env) => {
    expect(resolveRerankSettings({ ...env, ...NUMBERS }).enabled).toBe(false);
  });

  test('all three real → enabled, values trimmed, endpoint derived', () => {
    const settings = resolveRerankSettings({
      model: ' jina-reranker-v2-base-multilingual ',
      host: 'https://api.jina.ai/',
      apiKey: ' jina_abc ',
      timeoutSeconds: 2.5,
      minScore: -1,
    });
    expect(settings).toStrictEqual({
      enabled: true,
      model: 'jina-reranker-v2-base-multilingual',
      endpoint: 'https://api.jina.ai/v1/rerank',
      apiKey: 'jina_abc',
      timeoutSeconds: 2.5,
      minScore: -1,
    });
  });

  test('a real host with a missing model still reports its endpoint (trace field rerank_endpoint)', () => {
    const settings = resolveRerankSettings({ host: 'https://h', ...NUMBERS });
    expect(settings).toMatchObject({ enabled: false, model: null, endpoint: 'https://h/v1/rerank' });
  });
});
