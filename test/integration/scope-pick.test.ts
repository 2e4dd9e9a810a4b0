import { createOfflineChatModels } from '../../activities/adapters/offline-chat-models';
import { openHttpHarness, type HttpHarness } from '../support/http-harness';
import { PARENT_BACKENDS, RealKnowledgeBase } from '../support/real-knowledge-base';

/*
 * Issue 32 §1–§2 on the real services (Milvus, the embeddings server, Temporal, the offline models): two products'
 * manuals, stored under file ids as a team stores them ("beiji-x1.md"), that print the same company hotline and
 * different ranges. The hotline is answered (two sources, one fact); the range asks which product, offering the
 * manuals' titles (their first heading), not the file ids; a person's pick — by number, by title or by file id —
 * limits the targeted retrieval to that manual (a Milvus filter on the document) and the resumed run answers with
 * that manual's figure.
 */

const BEIJI = `# 北极星X1 使用手册

北极星X1 是星途科技出品的折叠电动滑板车。

## 续航

北极星X1 满电续航约 45 公里，最高时速 25 公里。

## 客服

星途科技客服热线：400-820-1234，工作日 9:00–18:00。
`;
const TIANLANG = `# 天狼S2 使用手册

天狼S2 是星途科技出品的越野电动滑板车。

## 续航

天狼S2 满电续航约 60 公里，最高时速 30 公里。

## 客服

星途科技客服热线：400-820-1234，工作日 9:00–18:00。
`;

let kb: RealKnowledgeBase;
let harness: HttpHarness;

beforeAll(async () => {
  kb = await RealKnowledgeBase.open(PARENT_BACKENDS[0]!, 'scope_pick');
  await kb.ingestFile('beiji-x1.md', BEIJI);
  await kb.ingestFile('tianlang-s2.md', TIANLANG);
  harness = await openHttpHarness({ retriever: kb.build().retriever, models: createOfflineChatModels() });
}, 300_000);

afterAll(async () => {
  await harness?.close();
  await kb?.close();
}, 60_000);

test('one fact printed by both manuals is answered: "星途科技的客服热线是多少？" corroborated, not asked back', async () => {
  const outcome = await harness.rag.ask('星途科技的客服热线是多少？');
  expect({ status: outcome.status, route: outcome.route }).toEqual({ status: 'completed', route: 'answer' });
  expect(outcome.answer?.text).toContain('400-820-1234');
  expect(String(outcome.rag_trace?.evidence_reason)).toMatch(/2 sources corroborate it .*both state 400/);
}, 120_000);

test.each([
  ['its number', () => '1', '北极星X1 使用手册', '45 公里'],
  ['its title', () => '天狼S2 使用手册', '天狼S2 使用手册', '60 公里'],
  // Stored names are tagged with the test run (kb.filename): the id a person would read in a list of documents.
  ['its file id', () => kb.filename('beiji-x1.md').replace(/\.md$/, ''), '北极星X1 使用手册', '45 公里'],
])('the range asks which manual, by title; picked by %s, the run answers from that manual only', async (_how, pickOf, title, figure) => {
  const pick = pickOf();
  const asked = await harness.rag.ask('续航是多少？');
  expect({ status: asked.status, route: asked.route }).toEqual({ status: 'awaiting_input', route: 'scope_select' });
  expect(asked.hitl?.options).toEqual(['北极星X1 使用手册', '天狼S2 使用手册']);
  const answered = await harness.rag.answer(asked.workflowId, pick);
  expect({ status: answered.status, route: answered.route }).toEqual({ status: 'completed', route: 'answer' });
  // The refined question carries the title, and the targeted retrieval read the chosen manual only.
  expect(answered.rag_trace?.query ?? '').toBe(`${title}：续航是多少？`);
  expect(new Set(answered.docs.map((doc) => doc.filename))).toEqual(new Set([kb.filename(title.startsWith('北极星') ? 'beiji-x1.md' : 'tianlang-s2.md')]));
  expect(answered.answer?.text).toContain(figure);
  // Issue 44 §3: the choice is a filter, and the trace records it under NexaRAG's names.
  const chosen = kb.filename(title.startsWith('北极星') ? 'beiji-x1.md' : 'tianlang-s2.md');
  expect({ filters: answered.rag_trace?.filters, effective_mode: answered.rag_trace?.effective_mode }).toEqual({ filters: { doc_id: [chosen] }, effective_mode: 'hybrid' });
  expect(asked.rag_trace?.filters).toBeUndefined(); // the question itself was not filtered
}, 120_000);

test('a run\'s own filter and a person\'s pick are one filter: the targeted retrieval keeps both', async () => {
  const asked = await harness.rag.ask('续航是多少？', { filters: { path: ['nowhere'] } });
  // No document has that folder: the filter leaves nothing, so the run has no evidence to offer a choice from.
  expect(asked.rag_trace?.filters).toEqual({ path: ['nowhere'] });
  expect(asked.docs).toEqual([]);
  const scoped = await harness.rag.ask('续航是多少？', { filters: { doc_id: [kb.filename('beiji-x1.md'), kb.filename('tianlang-s2.md')] } });
  expect({ status: scoped.status, route: scoped.route }).toEqual({ status: 'awaiting_input', route: 'scope_select' });
  const answered = await harness.rag.answer(scoped.workflowId, '2');
  expect(answered.rag_trace?.filters).toEqual({ doc_id: [kb.filename('tianlang-s2.md')] });
  expect(answered.answer?.text).toContain('60 公里');
}, 120_000);
