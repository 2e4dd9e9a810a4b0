import { collectionSchema } from '../../activities/adapters/milvus/schema';
import { LEAF_LEVEL } from '../../core/ingest/hierarchy';
import { newMilvusClient } from '../support/milvus';
import { PARENT_BACKENDS, RealKnowledgeBase } from '../support/real-knowledge-base';
import { services } from '../support/services';

/*
 * Issue 42 §1 on the real services (Milvus Lite, the embeddings server): a company's guide whose hotline section
 * does not name the company; the name is in the title. In a knowledge base created now (contextual-v1) the hotline
 * leaf is embedded and BM25-indexed with "星途科技 用户服务指南 › 联系我们", so a keyword search for the company's
 * name finds it, and the retrieved chunk's `text` is still the guide's own words (what answers quote). A knowledge
 * base created before (its collection of the old schema: BM25 over `text`) takes the same document the old way: the
 * keyword search does not find the hotline by the company's name, and `kb stats` says `plain`.
 */

const INTRO = Array.from({ length: 30 }, (_, i) => `星途科技第${i + 1}条服务说明：产品保修一年，配件可单独购买，退换货请保留包装。`).join('\n');
const GUIDE = `# 星途科技 用户服务指南

${INTRO}

## 联系我们

客服热线 400-820-1234，工作日 9:00–18:00，节假日请留言。
`;
const HOTLINE = '客服热线 400-820-1234';

const kbs: RealKnowledgeBase[] = [];
let contextual: RealKnowledgeBase;
let plain: RealKnowledgeBase;

beforeAll(async () => {
  contextual = await RealKnowledgeBase.open(PARENT_BACKENDS[0]!, 'contextual');
  kbs.push(contextual);
  plain = await RealKnowledgeBase.open(PARENT_BACKENDS[0]!, 'plain');
  kbs.push(plain);
  // The old schema, as every collection was created before issue 42; ingestion then adds its indexes and loads it.
  const client = newMilvusClient(services.milvusAddress);
  try {
    await client.createCollection(collectionSchema(plain.collection, services.embeddingDim, 'plain'));
  } finally {
    await client.closeConnection();
  }
  await contextual.ingestFile('xingtu-guide.md', GUIDE);
  await plain.ingestFile('xingtu-guide.md', GUIDE);
}, 300_000);

afterAll(async () => {
  for (const kb of kbs) await kb.close();
}, 60_000);

const bm25 = (kb: RealKnowledgeBase, query: string) => kb.adapters.knowledge.leafStoreOf(kb.collection).searchBm25(query, { limit: 20, leafLevel: LEAF_LEVEL });

test('contextual-v1: BM25 finds the hotline leaf by the company name of the title; its text is the original', async () => {
  const stored = await contextual.leavesOf(contextual.filename('xingtu-guide.md'));
  const hotline = stored.find((leaf) => leaf.text.includes(HOTLINE));
  expect(hotline?.text).toBe('## 联系我们\n\n客服热线 400-820-1234，工作日 9:00–18:00，节假日请留言。');
  expect(hotline?.text).not.toContain('星途科技'); // the leaf alone does not name the company

  const hits = await bm25(contextual, '星途科技');
  const hit = hits.find((h) => h.chunk_id === hotline?.chunk_id);
  expect(hit).toMatchObject({ text: hotline?.text, context: '星途科技 用户服务指南 › 联系我们' });
  expect((await contextual.adapters.knowledge.stats(contextual.collection)).chunking).toBe('contextual-v1');
}, 60_000);

test('contextual-v1: a retrieval reports the chunking and returns the hotline with its context beside the text', async () => {
  const result = await contextual.adapters.retriever.retrieve('星途科技的客服热线是多少？');
  expect(result.diagnostics?.chunking_version).toBe('contextual-v1');
  const doc = result.docs.find((d) => (d.text ?? '').includes(HOTLINE));
  expect(doc?.text).not.toContain('星途科技 用户服务指南 › '); // the context is not in the quoted text
  expect(doc?.context?.startsWith('星途科技 用户服务指南')).toBe(true);
}, 60_000);

test('an old-schema knowledge base keeps the plain chunking: no context, BM25 over the text alone, kb stats says plain', async () => {
  const stored = await plain.leavesOf(plain.filename('xingtu-guide.md'));
  const hotline = stored.find((leaf) => leaf.text.includes(HOTLINE));
  expect(hotline).toBeDefined();
  const hits = await bm25(plain, '星途科技');
  expect(hits.length).toBeGreaterThan(0); // the intro's leaves name the company
  expect(hits.some((h) => h.chunk_id === hotline?.chunk_id)).toBe(false);
  expect(hits.every((h) => h.context === undefined)).toBe(true);
  expect((await plain.adapters.knowledge.stats(plain.collection)).chunking).toBe('plain');
  expect((await plain.adapters.retriever.retrieve('星途科技的客服热线是多少？')).diagnostics?.chunking_version).toBe('plain');
}, 60_000);
