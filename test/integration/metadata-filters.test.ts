import { collectionSchema } from '../../activities/adapters/milvus/schema';
import { LEAF_LEVEL } from '../../core/ingest/hierarchy';
import { newMilvusClient } from '../support/milvus';
import { PARENT_BACKENDS, RealKnowledgeBase } from '../support/real-knowledge-base';
import { services } from '../support/services';

/*
 * Issue 44 §1–§2 on the real services (Milvus Lite, the embeddings server): metadata from front matter and --meta
 * reaches every leaf; a filter runs inside both Milvus searches (a leg asked for 50 hits returns only leaves that
 * pass); `docs meta set` changes what a filter finds without embedding again; a forced clause (§4's hook) is ANDed;
 * a knowledge base ingested before metadata answers as before and a filter on it says `no_metadata`.
 */

const page = (product: string, extra = '') => `---
product: ${product}
tags: [account, login]
${extra}---
# ${product} account guide

To reset the password of a ${product} account, open Settings, choose Security and press "Reset password".
A reset link is sent to the address on file and stays valid for 30 minutes.
`;

const kbs: RealKnowledgeBase[] = [];
let kb: RealKnowledgeBase;
let old: RealKnowledgeBase;
const QUESTION = 'How do I reset my account password?';

beforeAll(async () => {
  kb = await RealKnowledgeBase.open(PARENT_BACKENDS[0]!, 'meta');
  kbs.push(kb);
  old = await RealKnowledgeBase.open(PARENT_BACKENDS[0]!, 'meta_old');
  kbs.push(old);
  await kb.ingestFile('atlas.md', page('atlas'));
  await kb.ingestFile('zephyr.md', page('zephyr', 'acl: [hr]\n'));
  await kb.ingestFile('nimbus.md', page('nimbus'), { meta: { product: ['nimbus-2'], release: ['2024'] } });
  // A knowledge base as every one was before issue 44: leaves without `meta` (written as the store did then).
  const client = newMilvusClient(services.milvusAddress);
  try {
    await client.createCollection(collectionSchema(old.collection, services.embeddingDim, 'plain'));
  } finally {
    await client.closeConnection();
  }
  const store = old.adapters.knowledge.leafStoreOf(old.collection);
  await store.ensureCollection();
  const [vector] = await old.adapters.knowledge.embedder.embedPassages(['To reset the password, open Settings and choose Security.']);
  const leaf = { chunk_id: 'legacy.md::p0::l3::0', text: 'To reset the password, open Settings and choose Security.', filename: 'legacy.md', file_type: 'Markdown', file_path: 'legacy.md', page_number: 0, parent_chunk_id: 'legacy.md::p0::l2::0', root_chunk_id: 'legacy.md::p0::l1::0', chunk_level: LEAF_LEVEL, chunk_idx: 2 };
  await store.insertLeaves([{ ...leaf, dense: vector! }]);
}, 300_000);

afterAll(async () => {
  for (const each of kbs) await each.close();
}, 60_000);

const productsOf = (docs: ReadonlyArray<{ filename?: string | null }>) => [...new Set(docs.map((d) => String(d.filename).split('-')[0]))].sort();

test('front matter and --meta reach the record and every leaf; both legs filter inside the search', async () => {
  const records = await kb.adapters.knowledge.documents.list(kb.collection);
  expect(records.map((r) => r.meta)).toEqual([
    { product: ['atlas'], tags: ['account', 'login'] },
    { product: ['nimbus-2'], release: ['2024'], tags: ['account', 'login'] },
    { product: ['zephyr'], tags: ['account', 'login'], acl: ['hr'] },
  ]);
  const store = kb.adapters.knowledge.leafStoreOf(kb.collection);
  const filter = [{ key: 'product', anyOf: ['atlas'] }];
  const [vector] = await kb.adapters.knowledge.embedder.embedQueries([QUESTION]);
  const dense = await store.searchDense(vector!, { limit: 50, leafLevel: LEAF_LEVEL, filter });
  const bm25 = await store.searchBm25(QUESTION, { limit: 50, leafLevel: LEAF_LEVEL, filter });
  expect(dense.length).toBeGreaterThan(0);
  expect(bm25.length).toBeGreaterThan(0);
  expect(productsOf([...dense, ...bm25])).toEqual(['atlas']);
  expect((await kb.adapters.knowledge.stats(kb.collection)).metadata).toBe('all');
}, 60_000);

test('a filtered retrieval keeps the documents that pass; the diagnostics record filters, effective_mode and what was left', async () => {
  const all = await kb.adapters.retriever.retrieve(QUESTION, kb.collection);
  expect(productsOf(all.docs)).toEqual(['atlas', 'nimbus', 'zephyr']);
  expect(all.diagnostics).toMatchObject({ filters: null, effective_mode: 'hybrid' });

  const some = await kb.adapters.retriever.retrieve(QUESTION, kb.collection, { filters: { product: ['atlas', 'nimbus-2'] } });
  expect(productsOf(some.docs)).toEqual(['atlas', 'nimbus']);
  expect(some.diagnostics).toMatchObject({ filters: { product: ['atlas', 'nimbus-2'] }, effective_mode: 'hybrid', filter_documents: 2, filter_note: null });

  const none = await kb.adapters.retriever.retrieve(QUESTION, kb.collection, { filters: { product: ['orion'] } });
  expect(none.docs).toEqual([]);
  expect(none.diagnostics).toMatchObject({ filter_documents: 0, filter_note: 'no_match' });
}, 60_000);

test('a forced clause is ANDed with the caller\'s filters: a document whose access list lacks the group is never found', async () => {
  const forced = [{ key: 'acl', anyOf: ['ops'], orMissing: true }];
  const result = await kb.adapters.retriever.retrieve(QUESTION, kb.collection, { filters: { tags: ['login'] }, forced });
  expect(productsOf(result.docs)).toEqual(['atlas', 'nimbus']);
  const widened = await kb.adapters.retriever.retrieve(QUESTION, kb.collection, { filters: { product: ['zephyr'] }, forced });
  expect(widened.docs).toEqual([]);
}, 60_000);

test('docs meta set changes what a filter finds without embedding again: the vectors stay', async () => {
  const docId = kb.filename('atlas.md');
  const store = kb.adapters.knowledge.leafStoreOf(kb.collection);
  const before = await store.vectorsOfDocument(docId, services.embeddingModel);
  const record = await kb.adapters.knowledge.changeDocumentMeta(kb.collection, docId, (meta) => ({ ...meta, product: ['orion'] }));
  expect(record.meta?.product).toEqual(['orion']);
  expect(await store.vectorsOfDocument(docId, services.embeddingModel)).toEqual(before);
  const found = await kb.adapters.retriever.retrieve(QUESTION, kb.collection, { filters: { product: ['orion'] } });
  expect(productsOf(found.docs)).toEqual(['atlas']);
  expect((await kb.adapters.knowledge.documents.get(kb.collection, docId))?.meta?.product).toEqual(['orion']);
}, 60_000);

test('a knowledge base ingested before metadata answers as before; a filter on it finds nothing and says no_metadata', async () => {
  expect((await old.adapters.knowledge.stats(old.collection)).metadata).toBe('none');
  const plain = await old.adapters.retriever.retrieve(QUESTION, old.collection);
  expect(plain.docs.map((d) => d.chunk_id)).toEqual(['legacy.md::p0::l3::0']);
  const filtered = await old.adapters.retriever.retrieve(QUESTION, old.collection, { filters: { product: ['atlas'] } });
  expect(filtered.docs).toEqual([]);
  expect(filtered.diagnostics).toMatchObject({ filter_documents: 0, filter_note: 'no_metadata', effective_mode: 'hybrid' });
  const byId = await old.adapters.retriever.retrieve(QUESTION, old.collection, { filters: { doc_id: ['legacy.md'] } });
  expect(byId.docs).toHaveLength(1);
}, 60_000);
