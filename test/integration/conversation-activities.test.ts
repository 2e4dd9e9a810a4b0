import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createOfflineChatModels } from '../../activities/adapters/offline-chat-models';
import { createOpenAiChatModels } from '../../activities/adapters/openai-chat-models';
import { createSessionTurnStore, type SqlSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import { conversationActivities } from '../../activities/conversation-activities';
import type { ChatModels } from '../../activities/ports';
import { withRuleSteps } from '../../activities/adapters/rule-steps';
import { LOCAL_MODEL_STEPS } from '../../core/model-steps';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server';

/*
 * The conversation activities (issue 25 §1) on a real session turn store (SQLite) with the real OpenAI SDK against a
 * loopback OpenAI-compatible server, and with the offline provider: one FAST_MODEL call (structured output
 * `standalone_question`) only for a follow-up, its failure a fallback, and turns recorded once per run.
 */

const API_KEY = 'sk-test-conversation';
const Q1 = 'Aurora X2 路由器的保修期是多久？';
const Q2 = '它支持 WPA3 吗？';
const Q2_STANDALONE = 'Aurora X2 路由器支持 WPA3 吗？';

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
const newSession = () => `conv-${(sessions += 1)}`;
const openAi = () => createOpenAiChatModels({ apiKey: API_KEY, baseUrl: server.baseUrl, fastModel: 'fast-mini', gradeModel: 'grade-large' });
const inActivity = <T>(fn: () => Promise<T>): Promise<T> =>
  new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR') }).run<[], T, () => Promise<T>>(fn);
const activities = (models: ChatModels) => conversationActivities({ turns: store, models, sessionTurns: 6 });
const firstTurn = async (models: ChatModels, sessionId: string) =>
  activities(models).recordTurn({ tenant: '', sessionId, turn: { question: Q1, standaloneQuestion: Q1, answer: '保修期为两年[1]。', route: 'answer', workflowId: `${sessionId}-1` } });

test('a first turn makes no model call; a follow-up one FAST_MODEL call, whose rewrite retrieval uses', async () => {
  const session = newSession();
  const first = await inActivity(() => activities(openAi()).openTurn({ tenant: '', sessionId: session, question: Q1 }));
  expect(first.data.record).toMatchObject({ turnsBefore: 0, condensedBy: 'none' });
  expect(server.requests).toHaveLength(0);

  await firstTurn(openAi(), session);
  server.enqueue('standalone_question', { json: { standalone_question: Q2_STANDALONE, depends_on_history: true } });
  const second = await inActivity(() => activities(openAi()).openTurn({ tenant: '', sessionId: session, question: Q2 }));
  expect(second.data).toEqual({
    standaloneQuestion: Q2_STANDALONE,
    answerConversation: { asked: Q2, turns: [{ turn: 1, question: Q1, answer: '保修期为两年[1]。' }] },
    record: { question: Q2, turnsBefore: 1, turnsUsed: [1], turnsDropped: 0, dropReason: null, standaloneQuestion: Q2_STANDALONE, condensedBy: 'model', why: 'FAST_MODEL rewrote it from the earlier turns' },
  });
  expect(server.requests.map((request) => [request.body.model, request.schemaName])).toEqual([['fast-mini', 'standalone_question']]);
  const prompt = JSON.stringify(server.requests[0]?.body.messages);
  expect(prompt).toContain(`[1] 问：${Q1}`);
  expect(prompt).toContain(`最新问题：${Q2}`);
  // The call's record comes back with the activity's result, as every model activity's does (issue 24).
  expect(second.modelCalls?.map((call) => [call.schema, call.model])).toEqual([['standalone_question', 'fast-mini']]);
});

test('a FAST_MODEL that fails for good: the question as asked, the reason in the record', async () => {
  const session = newSession();
  await firstTurn(openAi(), session);
  // A reply that breaks the schema, also when asked again (the ladder's one re-ask, issue 24).
  server.setDefault('standalone_question', { json: { rewritten: Q2_STANDALONE } });
  const opened = await inActivity(() => activities(openAi()).openTurn({ tenant: '', sessionId: session, question: Q2 }));
  expect(opened.data.standaloneQuestion).toBe(Q2);
  expect(opened.data.record).toMatchObject({ condensedBy: 'fallback', turnsUsed: [1] });
  expect(opened.data.record.why).toMatch(/^condensing failed \(.*standalone_question.*\); the question is used as asked$/s);
  expect(server.requests).toHaveLength(2);
});

test('the offline provider condenses by its documented rules, and says which', async () => {
  const session = newSession();
  await firstTurn(createOfflineChatModels(), session);
  const opened = await activities(createOfflineChatModels()).openTurn({ tenant: '', sessionId: session, question: Q2 });
  expect(opened.data.record).toMatchObject({ standaloneQuestion: Q2_STANDALONE, condensedBy: 'offline_rules', why: 'resolved "它" to "Aurora X2 路由器" (turn 1)' });
  expect(opened.modelCalls).toBeUndefined();
});

test('a retried recordTurn records the turn once', async () => {
  const session = newSession();
  const turn = { question: Q1, standaloneQuestion: Q1, answer: null, route: 'clarify' as const, workflowId: 'rag-retried' };
  const once = await activities(createOfflineChatModels()).recordTurn({ tenant: 't', sessionId: session, turn });
  const again = await activities(createOfflineChatModels()).recordTurn({ tenant: 't', sessionId: session, turn });
  expect(again).toEqual(once);
  expect(await store.turnsOf('t', session)).toHaveLength(1);
});

test('a worker without a store reads no turns and records none', async () => {
  const bare = conversationActivities({ models: createOfflineChatModels(), sessionTurns: 6 });
  expect((await bare.openTurn({ tenant: '', sessionId: 'x', question: Q2 })).data.record).toMatchObject({ turnsBefore: 0, condensedBy: 'none' });
  expect(await bare.recordTurn({ tenant: '', sessionId: 'x', turn: { question: Q2, standaloneQuestion: Q2, answer: null, route: null, workflowId: 'w' } })).toBeNull();
});

describe('the intent step (issue 44 §5)', () => {
  // The answer model writes the reply (structured output `intent_reply`), asked only after the rules found a greeting,
  // a thanks or a question about the conversation; a failed reply leaves the rules' reply; with MODEL_STEPS
  // intent=rules (the local model's default) and the offline provider no model is asked.
  const intentModels = () => createOpenAiChatModels({ apiKey: API_KEY, baseUrl: server.baseUrl, fastModel: 'fast-mini', gradeModel: 'grade-large', answerModel: 'answer-large' });
  const open = (models: ChatModels, sessionId: string, question: string) =>
    inActivity(() => activities(models).openTurn({ tenant: '', sessionId, question, recognizeIntent: true }));

  test('a question about the conversation: one ANSWER_MODEL call with the turns; its reply is the answer, and nothing is condensed', async () => {
    const session = newSession();
    await firstTurn(openAi(), session);
    server.enqueue('intent_reply', { json: { needs_retrieval: false, reply: `你刚才问的是 Aurora X2 的保修期。` } });
    const opened = await open(intentModels(), session, '我刚才问了什么？');
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
    const hello = await open(intentModels(), newSession(), 'Hello');
    expect(hello.data.intent).toMatchObject({ intent: 'knowledge_query', decided_by: 'model', needs_retrieval: true, reply: null });
    const real = await open(intentModels(), newSession(), 'Hi-Fi 音箱多少钱?');
    expect(real.data.intent).toMatchObject({ intent: 'knowledge_query', decided_by: 'rules', needs_retrieval: true });
    expect(server.requests.map((request) => request.schemaName)).toEqual(['intent_reply']);
  });

  test('a reply that breaks its schema: the rules reply, and the record says why', async () => {
    server.setDefault('intent_reply', { json: { answer: 'hi' } });
    const opened = await open(intentModels(), newSession(), 'thanks!');
    expect(opened.data.intent).toMatchObject({ intent: 'thanks', decided_by: 'rules', needs_retrieval: false, reply: "You're welcome! Ask me if anything else comes up." });
    expect(opened.data.intent?.rule).toMatch(/^thanks:thanks; the model's reply failed \(.*intent_reply.*\), the rules replied$/s);
  });

  test('MODEL_STEPS intent=rules (the local model) and the offline provider: the rules reply, no model call', async () => {
    const local = withRuleSteps(intentModels(), createOfflineChatModels(), LOCAL_MODEL_STEPS);
    for (const models of [local, createOfflineChatModels()]) {
      const opened = await open(models, newSession(), '你好');
      expect(opened.data.intent).toMatchObject({ intent: 'greeting', decided_by: 'rules', reply: '你好！有什么关于知识库文档的问题，尽管问我。', replied_by: 'intent-rules v1' });
    }
    expect(server.requests).toHaveLength(0);
  });
});
