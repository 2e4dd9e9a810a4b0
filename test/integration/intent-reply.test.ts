import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createOfflineChatModels } from '../../activities/adapters/offline-chat-models';
import { createOpenAiChatModels } from '../../activities/adapters/openai-chat-models';
import { withRuleSteps } from '../../activities/adapters/rule-steps';
import { createSessionTurnStore, type SqlSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import { conversationActivities } from '../../activities/conversation-activities';
import type { ChatModels } from '../../activities/ports';
import { LOCAL_MODEL_STEPS } from '../../core/model-steps';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server';

/*
 * Issue 44 §5: the intent step in openTurn, on a real session turn store (SQLite) with the real OpenAI SDK against a
 * loopback OpenAI-compatible server. The answer model is asked (structured output `intent_reply`) only after the
 * rules found a greeting, a thanks or a question about the conversation; it writes the reply or sends the question
 * to retrieval; a reply that fails leaves the rules' reply. With MODEL_STEPS intent=rules (the local model's default)
 * and the offline provider no model is asked.
 */

const API_KEY = 'sk-test-intent';
const Q1 = 'Aurora X2 路由器的保修期是多久？';

let server: FakeOpenAiServer;
let store: SqlSessionTurnStore;
beforeAll(async () => {
  server = await startFakeOpenAiServer({ apiKey: API_KEY });
  store = createSessionTurnStore({ sqliteFile: ':memory:' });
});
afterAll(async () => {
  await store.close();
  await server.close();
});
beforeEach(() => server.reset());

let sessions = 0;
const newSession = () => `intent-${(sessions += 1)}`;
const openAi = () => createOpenAiChatModels({ apiKey: API_KEY, baseUrl: server.baseUrl, fastModel: 'fast-mini', gradeModel: 'grade-large', answerModel: 'answer-large' });
const inActivity = <T>(fn: () => Promise<T>): Promise<T> =>
  new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR') }).run<[], T, () => Promise<T>>(fn);
const open = (models: ChatModels, sessionId: string, question: string) =>
  inActivity(() => conversationActivities({ turns: store, models, sessionTurns: 6 }).openTurn({ tenant: '', sessionId, question, recognizeIntent: true }));
const recordFirst = (sessionId: string) =>
  conversationActivities({ turns: store, models: openAi(), sessionTurns: 6 }).recordTurn({ tenant: '', sessionId, turn: { question: Q1, standaloneQuestion: Q1, answer: '保修期为两年[1]。', route: 'answer', workflowId: `${sessionId}-1` } });

test('a question about the conversation: one ANSWER_MODEL call with the turns; its reply is the answer, and nothing is condensed', async () => {
  const session = newSession();
  await recordFirst(session);
  server.enqueue('intent_reply', { json: { needs_retrieval: false, reply: `你刚才问的是 Aurora X2 的保修期。` } });
  const opened = await open(openAi(), session, '我刚才问了什么？');
  expect(opened.data.intent).toMatchObject({ intent: 'conversation_meta', decided_by: 'model', needs_retrieval: false, reply: '你刚才问的是 Aurora X2 的保修期。', replied_by: 'answer-large' });
  expect(opened.data.record).toMatchObject({ standaloneQuestion: '我刚才问了什么？', condensedBy: 'none', why: 'a conversation_meta needs no retrieval' });
  expect(server.requests.map((request) => [request.body.model, request.schemaName])).toEqual([['answer-large', 'intent_reply']]);
  const prompt = JSON.stringify(server.requests[0]?.body.messages);
  expect(prompt).toContain(`[1] 问：${Q1}`);
  expect(prompt).toContain('用户的最新消息：我刚才问了什么？');
  expect(opened.modelCalls?.map((call) => call.schema)).toEqual(['intent_reply']);
});

test('the model says a greeting-like message needs retrieval: the run retrieves; a real question never asks the model', async () => {
  server.enqueue('intent_reply', { json: { needs_retrieval: true, reply: '' } });
  const hello = await open(openAi(), newSession(), 'Hello');
  expect(hello.data.intent).toMatchObject({ intent: 'knowledge_query', decided_by: 'model', needs_retrieval: true, reply: null });
  const real = await open(openAi(), newSession(), 'Hi-Fi 音箱多少钱?');
  expect(real.data.intent).toMatchObject({ intent: 'knowledge_query', decided_by: 'rules', needs_retrieval: true });
  expect(server.requests.map((request) => request.schemaName)).toEqual(['intent_reply']);
});

test('a reply that breaks its schema: the rules reply, and the record says why', async () => {
  server.setDefault('intent_reply', { json: { answer: 'hi' } });
  const opened = await open(openAi(), newSession(), 'thanks!');
  expect(opened.data.intent).toMatchObject({ intent: 'thanks', decided_by: 'rules', needs_retrieval: false, reply: "You're welcome! Ask me if anything else comes up." });
  expect(opened.data.intent?.rule).toMatch(/^thanks:thanks; the model's reply failed \(.*intent_reply.*\), the rules replied$/s);
});

test('MODEL_STEPS intent=rules (the local model) and the offline provider: the rules reply, no model call', async () => {
  const local = withRuleSteps(openAi(), createOfflineChatModels(), LOCAL_MODEL_STEPS);
  for (const models of [local, createOfflineChatModels()]) {
    const opened = await open(models, newSession(), '你好');
    expect(opened.data.intent).toMatchObject({ intent: 'greeting', decided_by: 'rules', reply: '你好！有什么关于知识库文档的问题，尽管问我。', replied_by: 'intent-rules v1' });
  }
  expect(server.requests).toHaveLength(0);
});
