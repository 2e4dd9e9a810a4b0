import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createOpenAiChatModels } from '../../activities/adapters/openai-chat-models';
import { modelActivities } from '../../activities/model-activities';
import { RagClient } from '../../client/rag-client';
import { buildAnswerPrompt } from '../../core/prompts/answer-prompt';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server';
import { grade, retrievalTable } from '../support/scenario';
import { createWorker, newTaskQueue, openWorkflowEnv, sessionId, type WorkflowEnv } from '../workflows/harness';

/*
 * The answer node's OpenAI path (issue 11 §3): the real openai SDK against the scripted OpenAI-compatible server on
 * loopback — the generateAnswer activity alone (in a Temporal activity context), then whole runs on the dev server
 * with the real activities and the OpenAI answer writer: a verified answer, a bad citation repaired, a second failure
 * returned flagged, and replies that break the answer_draft contract handled like every other model call.
 */

const API_KEY = 'sk-test-ANSWERS-0123456789';
const Q = '丹瑾是什么属性？';
const DOCS: Chunk[] = [{ chunk_id: 'c1', filename: '角色.md', page_number: 1, text: '丹瑾是一名湮灭属性的角色。她擅长近战。' }];
const CONTEXT = '[1] 角色.md (Page 1):\n丹瑾是一名湮灭属性的角色。她擅长近战。'; // spec §4.4.2 rendering of DOCS
const GOOD = { answer: '丹瑾是湮灭属性[1]。', citations: [{ marker: 1, doc_index: 1, quote: '丹瑾是一名湮灭属性的角色' }] };
const BAD_QUOTE = { answer: '丹瑾是衍射属性[1]。', citations: [{ marker: 1, doc_index: 1, quote: '丹瑾是衍射属性的角色' }] };

let server: FakeOpenAiServer;
let env: WorkflowEnv;
beforeAll(async () => {
  server = await startFakeOpenAiServer({ apiKey: API_KEY });
  env = await openWorkflowEnv();
}, 120_000);
afterAll(async () => {
  await server?.close();
  await env?.close();
});
beforeEach(() => server.reset());

const openAi = () =>
  createOpenAiChatModels({ apiKey: API_KEY, baseUrl: server.baseUrl, fastModel: 'fast-mini', gradeModel: 'grade-large', answerModel: 'answer-large' });
const inActivity = <T>(fn: () => Promise<T>, attempt = 1): Promise<T> =>
  new MockActivityEnvironment({ attempt }, { logger: new DefaultLogger('ERROR') }).run<[], T, () => Promise<T>>(fn);
const generate = (attempt = 1) => inActivity(() => modelActivities(openAi()).generateAnswer({ question: Q, docs: DOCS }), attempt);

describe('generateAnswer through the real SDK', () => {
  test('a verified answer: ANSWER_MODEL, structured output answer_draft, the answer prompt with the formatted evidence', async () => {
    server.enqueue('answer_draft', { json: GOOD });
    const { data, traceFragment } = await generate();
    expect(data).toMatchObject({
      text: GOOD.answer,
      citations: [{ marker: 1, doc_index: 1, chunk_id: 'c1', filename: '角色.md', page_number: 1, quote: '丹瑾是一名湮灭属性的角色' }],
      verification: { status: 'verified', invalid_citations: [], uncited_sentences: [] },
      model: 'answer-large',
      prompt_version: 'answer-v1',
      repair_attempted: false,
    });
    expect(traceFragment).toEqual({ fields: {} });
    const [request] = server.requests;
    expect(request?.body.model).toBe('answer-large');
    expect(request?.body.temperature).toBe(0);
    expect(request?.body.messages).toEqual([buildAnswerPrompt(Q, CONTEXT)]);
  });

  test('the repair request carries the failed draft and what the verifier found', async () => {
    server.enqueue('answer_draft', { json: BAD_QUOTE }, { json: GOOD });
    const first = await generate();
    expect(first.data.verification).toEqual({
      status: 'unverified',
      invalid_citations: [{ marker: 1, doc_index: 1, reason: 'quote_not_found' }],
      uncited_sentences: ['丹瑾是衍射属性[1]。'],
    });
    const repaired = await inActivity(() => modelActivities(openAi()).generateAnswer({ question: Q, docs: DOCS, repair: { previous: first.data } }));
    expect(repaired.data).toMatchObject({ text: GOOD.answer, repair_attempted: true, verification: { status: 'verified' } });
    const prompt = JSON.stringify(server.requests[1]?.body.messages);
    expect(prompt).toContain('你上一次的回答没有通过引用校验');
    expect(prompt).toContain('[1] (doc_index 1) has a quote that is not in that snippet');
    expect(prompt).toContain('丹瑾是衍射属性的角色');
  });

  test('a reply that violates answer_draft: retried (MODEL_OUTPUT_RETRY) until the last attempt, then MODEL_OUTPUT_INVALID', async () => {
    server.setDefault('answer_draft', { json: { answer: '丹瑾', citations: [{ marker: 'one' }] } });
    await expect(generate(1)).rejects.toMatchObject({ type: 'MODEL_OUTPUT_RETRY', nonRetryable: false });
    await expect(generate(3)).rejects.toMatchObject({ type: 'MODEL_OUTPUT_INVALID', nonRetryable: true });
    const failure = (await generate(3).catch((error: unknown) => error)) as Error;
    expect(failure.message).toMatch(/^answer-large returned output that violates answer_draft: /);
  });

  test('a reply that is not JSON counts against the same budget', async () => {
    server.setDefault('answer_draft', { content: '丹瑾是湮灭属性。' });
    await expect(generate(1)).rejects.toMatchObject({ type: 'MODEL_OUTPUT_RETRY' });
  });
});

describe('whole runs with the OpenAI answer writer (dev server, real activities)', () => {
  const sure = grade('strong', 'sufficient', 'none', 'answer', 0.95);
  async function run(): Promise<Awaited<ReturnType<RagClient['ask']>>> {
    server.setDefault('evidence_grade', { json: sure });
    const models = openAi();
    const taskQueue = newTaskQueue();
    const worker = await createWorker(env, { models, retriever: { retrieve: async (query) => retrievalTable({ [Q]: DOCS })(query) } }, taskQueue);
    return worker.runUntil(RagClient.fromClient(env.client, taskQueue).ask(Q, { sessionId: sessionId() }));
  }

  test('a verified answer', async () => {
    server.enqueue('answer_draft', { json: GOOD });
    const outcome = await run();
    expect(outcome.answer).toMatchObject({ text: GOOD.answer, verification: { status: 'verified' }, repair_attempted: false, model: 'answer-large' });
    expect(server.requests.filter((request) => request.schemaName === 'answer_draft')).toHaveLength(1);
  });

  test('a bad citation repaired: two answer_draft calls, the second verified', async () => {
    server.enqueue('answer_draft', { json: BAD_QUOTE }, { json: GOOD });
    const outcome = await run();
    expect(outcome.answer).toMatchObject({ text: GOOD.answer, verification: { status: 'verified' }, repair_attempted: true });
    expect(server.requests.filter((request) => request.schemaName === 'answer_draft')).toHaveLength(2);
  });

  test('a second failure returned flagged: the run completes with what it has', async () => {
    server.enqueue('answer_draft', { json: BAD_QUOTE }, { json: BAD_QUOTE });
    const outcome = await run();
    expect(outcome.status).toBe('completed');
    expect(outcome.answer).toMatchObject({ text: BAD_QUOTE.answer, verification: { status: 'unverified' }, repair_attempted: true });
    expect(outcome.answer?.verification.invalid_citations).toEqual([{ marker: 1, doc_index: 1, reason: 'quote_not_found' }]);
  });

  test('a writer the endpoint refuses for good (HTTP 401): answer null, answer_failed, the evidence kept', async () => {
    server.setDefault('answer_draft', { status: 401, message: 'invalid api key' });
    const outcome = await run();
    expect([outcome.status, outcome.route, outcome.answer, outcome.answer_null_reason]).toEqual(['completed', 'answer', null, 'answer_failed']);
    expect(outcome.answer_error?.type).toBe('MODEL_NOT_CONFIGURED');
    expect(outcome.docs).toHaveLength(1);
  });
});
