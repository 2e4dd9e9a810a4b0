import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import OpenAI from 'openai';
import { createOpenAiChatModels, type OpenAiChatModelsOptions } from '../../activities/adapters/openai-chat-models';
import { selectChatModels } from '../../activities/adapters/select-chat-models';
import { modelActivities } from '../../activities/model-activities';
import type { ChatModels } from '../../activities/ports';
import { parseConfig } from '../../core/config';
import { buildComplexityPrompt } from '../../core/prompts/complexity-prompt';
import { buildGraderPrompt } from '../../core/prompts/grader-prompt';
import { buildRewritePrompt } from '../../core/prompts/rewrite-prompt';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { fakeEmbedding, startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server';

// The real openai SDK against a scripted OpenAI-compatible server on loopback, through the real model activities
// run in a Temporal activity context (MockActivityEnvironment). Issue 5 §1 and §5; spec §7 for the contracts.

const API_KEY = 'sk-test-SECRET-0123456789';
const QUESTION = '丹瑾是什么属性？';
const DOCS: Chunk[] = [{ filename: '角色.md', page_number: 1, text: '丹瑾是湮灭属性的角色。' }];
const CONTEXT = '[1] 角色.md (Page 1):\n丹瑾是湮灭属性的角色。'; // spec §4.4.2 rendering of DOCS

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAiServer({ apiKey: API_KEY });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const openAi = (options: Partial<OpenAiChatModelsOptions> = {}) =>
  createOpenAiChatModels({ apiKey: API_KEY, baseUrl: server.baseUrl, fastModel: 'fast-mini', gradeModel: 'grade-large', ...options });
const inActivity = <T>(fn: () => Promise<T>, attempt = 1): Promise<T> =>
  new MockActivityEnvironment({ attempt }, { logger: new DefaultLogger('ERROR') }).run<[], T, () => Promise<T>>(fn);
const grade = (models: ChatModels = openAi()) =>
  inActivity(() => modelActivities(models).gradeEvidence({ question: QUESTION, docs: DOCS, rewriteCount: 0, isSubAgent: false }));

describe('valid structured outputs through the real SDK (spec §7)', () => {
  test('planner: a simple question', async () => {
    server.enqueue('complexity_result', { json: { complexity: 'simple', reason: '单一事实查询', sub_questions: [] } });
    const { data } = await inActivity(() => modelActivities(openAi()).planComplexity({ question: QUESTION }));
    expect(data).toEqual({ complexity: 'simple', complexityReason: '单一事实查询', subQuestions: [] });
  });

  test('planner: a complex question split into sub-questions', async () => {
    const subQuestions = ['丹瑾的技能是什么？', '椿的技能是什么？'];
    server.enqueue('complexity_result', { json: { complexity: 'complex', reason: '比较', sub_questions: subQuestions } });
    const { data } = await inActivity(() => modelActivities(openAi()).planComplexity({ question: '丹瑾和椿的技能有什么区别？' }));
    expect(data).toEqual({ complexity: 'complex', complexityReason: '比较', subQuestions });
  });

  // Grades chosen so that spec §4.5.3 resolves to the route the model suggests.
  test.each([
    ['answer', { relevance: 'strong', answerability: 'sufficient', ambiguity: 'none', route: 'answer', confidence: 0.9 }],
    ['rewrite', { relevance: 'weak', answerability: 'partial', ambiguity: 'none', route: 'rewrite', confidence: 0.4 }],
    ['clarify', { relevance: 'weak', answerability: 'partial', ambiguity: 'missing_slot', route: 'clarify', missing_slots: ['版本'], hitl_prompt: '请问是哪个版本？' }],
    ['scope_select', { relevance: 'strong', answerability: 'partial', ambiguity: 'multiple_candidates', route: 'scope_select', hitl_options: ['角色', '武器'] }],
    ['no_knowledge', { relevance: 'none', answerability: 'none', ambiguity: 'none', route: 'no_knowledge' }],
  ])('grader → route %s', async (route, json) => {
    server.enqueue('evidence_grade', { json });
    const { data } = await grade();
    expect(data.route).toBe(route);
    expect(data.grade).toMatchObject(json);
  });

  test.each([
    ['step_back', { method: 'step_back', step_back_question: '角色属性体系是什么？', hyde_document: '' }, '\n\n退步问题：角色属性体系是什么？'],
    ['hyde', { method: 'hyde', step_back_question: '', hyde_document: '丹瑾是一名湮灭属性角色。' }, '\n\n假设性答案文档：丹瑾是一名湮灭属性角色。'],
  ])('rewriter → %s', async (method, json, suffix) => {
    server.enqueue('rewrite_plan', { json });
    const { data } = await inActivity(() => modelActivities(openAi()).planRewrite({ question: QUESTION, rewriteCount: 0 }));
    expect(data).toMatchObject({ rewrite_method: method, rewritten_query: QUESTION + suffix });
  });
});

describe('request shape (issue 5 §1, spec §7)', () => {
  test('one user message, temperature 0, json_schema by name, the model per call', async () => {
    server.enqueue('complexity_result', { json: { complexity: 'simple', reason: '', sub_questions: [] } });
    server.enqueue('evidence_grade', { json: { relevance: 'strong', answerability: 'sufficient', route: 'answer' } });
    server.enqueue('rewrite_plan', { json: { method: 'step_back', step_back_question: 'q', hyde_document: '' } });
    const activities = modelActivities(openAi());
    await inActivity(() => activities.planComplexity({ question: QUESTION }));
    await grade();
    await inActivity(() => activities.planRewrite({ question: QUESTION, rewriteCount: 0 }));

    expect(server.requests.map((r) => [r.path, r.body.model, r.schemaName])).toEqual([
      ['/v1/chat/completions', 'fast-mini', 'complexity_result'],
      ['/v1/chat/completions', 'grade-large', 'evidence_grade'],
      ['/v1/chat/completions', 'fast-mini', 'rewrite_plan'],
    ]);
    const prompts = [buildComplexityPrompt(QUESTION), buildGraderPrompt(QUESTION, CONTEXT), buildRewritePrompt(QUESTION)];
    server.requests.forEach((request, i) => {
      expect(request.authorization).toBe(`Bearer ${API_KEY}`);
      expect(request.body.temperature).toBe(0);
      expect(request.body.messages).toEqual([prompts[i]]);
      expect(request.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { strict: true } });
    });
    expect(server.requests[1]?.body.messages).toEqual([{ role: 'user', content: expect.stringContaining(`检索片段：\n${CONTEXT}`) }]);
  });

  test('the schemas sent are strict: every property required, no additional properties', async () => {
    server.enqueue('evidence_grade', { json: { relevance: 'none', answerability: 'none', route: 'no_knowledge' } });
    await grade();
    const format = server.requests[0]?.body.response_format as { json_schema: { schema: Record<string, unknown> } };
    const { properties, required, additionalProperties } = format.json_schema.schema as {
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(required).toEqual(Object.keys(properties));
    expect(required).toEqual(['relevance', 'answerability', 'ambiguity', 'route', 'confidence', 'missing_slots', 'hitl_prompt', 'hitl_options', 'reason']);
    expect(additionalProperties).toBe(false);
  });
});

describe('describe and provider selection (issue 5 §1)', () => {
  test('describe names the models and the endpoint host, never the key', () => {
    const { describe } = openAi();
    expect(describe.replace(/:\d+$/, ':PORT')).toMatchInlineSnapshot(`"openai fast=fast-mini grade=grade-large answer=grade-large @ 127.0.0.1:PORT"`);
    expect(describe).not.toContain(API_KEY);
    expect(createOpenAiChatModels({}).describe).toMatchInlineSnapshot(`"openai fast=(unset) grade=(unset) answer=(unset) @ api.openai.com"`);
  });

  const offline: ChatModels = { describe: 'offline-policy test', answerModel: 'offline', planComplexity: jest.fn(), gradeEvidence: jest.fn(), planRewrite: jest.fn(), writeAnswer: jest.fn() };
  const ready = { OPENAI_API_KEY: API_KEY, FAST_MODEL: 'f', GRADE_MODEL: 'g' };
  test.each([
    ['nothing set', {}, 'offline'],
    ['unset, key and FAST_MODEL only', { OPENAI_API_KEY: API_KEY, FAST_MODEL: 'f' }, 'offline'],
    ['unset, key and both models', ready, 'openai'],
    ['MODEL_PROVIDER=offline, all set', { MODEL_PROVIDER: 'offline', ...ready }, 'offline'],
    ['MODEL_PROVIDER=openai, all set', { MODEL_PROVIDER: 'openai', ...ready }, 'openai'],
  ])('%s → %s', (_label, env, provider) => {
    const choice = selectChatModels(parseConfig(env), { offline: () => offline });
    expect(choice.provider).toBe(provider);
    expect(choice.models.describe).toBe(provider === 'offline' ? 'offline-policy test' : 'openai fast=f grade=g answer=g @ api.openai.com');
  });
});

test('embeddings: the scripted server answers the real SDK with deterministic vectors', async () => {
  const client = new OpenAI({ apiKey: API_KEY, baseURL: server.baseUrl, maxRetries: 0 });
  const reply = await client.embeddings.create({ model: 'fake-embed', input: ['query: 丹瑾', 'passage: 椿'] });
  expect(reply.data).toHaveLength(2);
  reply.data.forEach((item, i) => {
    const expected = fakeEmbedding(i === 0 ? 'query: 丹瑾' : 'passage: 椿');
    item.embedding.forEach((value, k) => expect(value).toBeCloseTo(expected[k] as number, 5));
  });
  expect(server.requests[0]).toMatchObject({ path: '/v1/embeddings', authorization: `Bearer ${API_KEY}` });
});
