import { ApplicationFailure, defaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createOpenAiChatModels, type OpenAiChatModelsOptions } from '../../activities/adapters/openai-chat-models';
import { modelActivities } from '../../activities/model-activities';
import { MODEL_OUTPUT_ATTEMPTS } from '../../activities/model-output';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { MODEL_CALL } from '../../workflows/activity-options';
import { startFakeOpenAiServer, type FakeOpenAiServer, type ScriptedReply } from '../support/fake-openai-server';

// How the OpenAI path fails (DESIGN §4, issue 5 §5): schema violations retried twice then MODEL_OUTPUT_INVALID,
// transient HTTP failures retryable for Temporal's MODEL_CALL policy (the SDK itself makes one request per
// attempt), missing configuration terminal. The error a workflow would see is what reaches Temporal.

const API_KEY = 'sk-test-SECRET-0123456789';
const DOCS: Chunk[] = [{ filename: '角色.md', page_number: 1, text: '丹瑾是湮灭属性的角色。' }];

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAiServer({ apiKey: API_KEY });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const openAi = (options: Partial<OpenAiChatModelsOptions> = {}) =>
  createOpenAiChatModels({ apiKey: API_KEY, baseUrl: server.baseUrl, fastModel: 'fast-mini', gradeModel: 'grade-large', ...options });

type Call = 'planComplexity' | 'gradeEvidence' | 'planRewrite';
const SCHEMA: Record<Call, string> = { planComplexity: 'complexity_result', gradeEvidence: 'evidence_grade', planRewrite: 'rewrite_plan' };

const inActivity = <T>(fn: () => Promise<T>, attemptNumber: number): Promise<T> =>
  new MockActivityEnvironment({ attempt: attemptNumber }, { logger: new DefaultLogger('ERROR') }).run<[], T, () => Promise<T>>(fn);

/** Runs one activity attempt in a Temporal activity context; resolves to the activity's data. */
function attempt(call: Call, attemptNumber = 1, options: Partial<OpenAiChatModelsOptions> = {}): Promise<unknown> {
  const activities = modelActivities(openAi(options));
  const run = {
    planComplexity: async () => (await activities.planComplexity({ question: '丹瑾和椿有什么区别？' })).data,
    gradeEvidence: async () =>
      (await activities.gradeEvidence({ question: '丹瑾是什么属性？', docs: DOCS, rewriteCount: 0, isSubAgent: false })).data,
    planRewrite: async () => (await activities.planRewrite({ question: '丹瑾是什么属性？', rewriteCount: 0 })).data,
  }[call];
  return inActivity<unknown>(run, attemptNumber);
}

/** The failure of one attempt, checked to be what Temporal receives: an ApplicationFailure, never the key. */
async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => {
      throw new Error('expected the activity to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  const proto = defaultFailureConverter.errorToFailure(error, defaultPayloadConverter);
  expect(JSON.stringify(proto)).not.toContain(API_KEY);
  return error as ApplicationFailure;
}
const shown = (failure: ApplicationFailure) => failure.message.replace(/127\.0\.0\.1:\d+/g, 'HOST').replace(/req_fake_\d+/, 'req_fake_N');

describe('schema-violating output: MODEL_OUTPUT_RETRY twice, then MODEL_OUTPUT_INVALID (DESIGN §4)', () => {
  // Requests per attempt: an invalid or unreadable reply is re-asked once inside the attempt (issue 24 §1); a refusal
  // or a reply cut off is not.
  test.each<[string, Call, ScriptedReply, RegExp, number]>([
    ['5 sub-questions', 'planComplexity', { json: { complexity: 'complex', reason: '', sub_questions: ['1', '2', '3', '4', '5'] } }, /sub_questions/, 2],
    ['confidence 1.4', 'gradeEvidence', { json: { relevance: 'strong', answerability: 'sufficient', route: 'answer', confidence: 1.4 } }, /confidence/, 2],
    ['unknown route enum', 'gradeEvidence', { json: { relevance: 'strong', answerability: 'sufficient', route: 'maybe' } }, /route/, 2],
    ['unknown method enum', 'planRewrite', { json: { method: 'paraphrase', step_back_question: 'x', hyde_document: '' } }, /method/, 2],
    ['a reply that is not JSON', 'planComplexity', { content: 'complexity: simple' }, /fast-mini replied with text that is not JSON/, 2],
    ['a refusal', 'gradeEvidence', { refusal: '抱歉，我无法处理。' }, /grade-large refused: "抱歉，我无法处理。"/, 1],
    ['a reply cut off at the token limit', 'planRewrite', { content: '{"method": "hy', finishReason: 'length' }, /cut off/, 1],
  ])('%s (%s)', async (_label, call, reply, violation, requestsPerAttempt) => {
    server.setDefault(SCHEMA[call], reply);
    for (let n = 1; n <= MODEL_OUTPUT_ATTEMPTS; n += 1) {
      const failure = await failureOf(attempt(call, n));
      const last = n === MODEL_OUTPUT_ATTEMPTS;
      expect([failure.type, failure.nonRetryable]).toEqual(last ? ['MODEL_OUTPUT_INVALID', true] : ['MODEL_OUTPUT_RETRY', false]);
      expect(failure.message).toContain(`returned output that violates ${SCHEMA[call]}`);
      expect(failure.message).toMatch(call === 'gradeEvidence' ? /grade-large/ : /fast-mini/);
      expect(failure.message).toMatch(violation);
    }
    expect(server.requests).toHaveLength(MODEL_OUTPUT_ATTEMPTS * requestsPerAttempt);
  });

  test('the terminal message names the model, the schema and the violation', async () => {
    server.setDefault('evidence_grade', { json: { relevance: 'strong', answerability: 'sufficient', route: 'answer', confidence: 1.4 } });
    expect(shown(await failureOf(attempt('gradeEvidence', 3)))).toMatchInlineSnapshot(`"openai fast=fast-mini grade=grade-large answer=grade-large @ HOST returned output that violates evidence_grade: ✖ Too big: expected number to be <=1 → at confidence"`);
  });

  test('a violation is re-asked once, quoting it: valid on the re-ask, the attempt succeeds', async () => {
    server.enqueue('complexity_result', { json: { complexity: 'medium' } }, { json: { complexity: 'simple', reason: 'r', sub_questions: [] } });
    expect(await attempt('planComplexity', 1)).toMatchObject({ complexity: 'simple' });
    const reask = server.requests[1]?.body.messages as { role: string; content: string }[];
    expect(reask.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(reask[1]?.content).toBe('{"complexity":"medium"}');
    expect(reask[2]?.content).toContain('Invalid option: expected one of "simple"|"complex" → at complexity');
  });

  test('schema-valid output after a violated re-ask succeeds on the activity retry', async () => {
    const medium = { json: { complexity: 'medium' } };
    server.enqueue('complexity_result', medium, medium, { json: { complexity: 'simple', reason: 'r', sub_questions: [] } });
    expect((await failureOf(attempt('planComplexity', 1))).type).toBe('MODEL_OUTPUT_RETRY');
    expect(await attempt('planComplexity', 2)).toMatchObject({ complexity: 'simple' });
  });
});

describe('transient failures are retryable and left to Temporal (MODEL_CALL)', () => {
  test('429 with retry-after, then success: the retry honours retry-after', async () => {
    server.enqueue('evidence_grade', { status: 429, headers: { 'retry-after': '3' } }, { json: { relevance: 'none', answerability: 'none', route: 'no_knowledge' } });
    const failure = await failureOf(attempt('gradeEvidence', 1));
    expect([failure.type, failure.nonRetryable, failure.nextRetryDelay]).toEqual(['SERVICE_UNAVAILABLE', false, 3000]);
    expect(shown(failure)).toMatchInlineSnapshot(`"grade-large (evidence_grade) at HOST failed: 429 scripted 429 (request req_fake_N)"`);
    expect(server.requests).toHaveLength(1); // the SDK did not retry on its own
    expect(await attempt('gradeEvidence', 2)).toMatchObject({ route: 'no_knowledge' });
  });

  test('500 until the retry policy is exhausted: every attempt fails retryable, none swallowed', async () => {
    server.setDefault('complexity_result', { status: 500, message: 'upstream overloaded' });
    const maximumAttempts = MODEL_CALL.retry?.maximumAttempts ?? 0;
    expect(MODEL_CALL.retry?.nonRetryableErrorTypes).not.toContain('SERVICE_UNAVAILABLE');
    for (let n = 1; n <= maximumAttempts; n += 1) {
      const failure = await failureOf(attempt('planComplexity', n));
      const proto = defaultFailureConverter.errorToFailure(failure, defaultPayloadConverter);
      expect(proto.applicationFailureInfo).toMatchObject({ type: 'SERVICE_UNAVAILABLE', nonRetryable: false });
      expect(failure.message).toContain('fast-mini (complexity_result) at 127.0.0.1');
      expect(failure.message).toContain('failed: 500 upstream overloaded');
    }
    expect(server.requests).toHaveLength(maximumAttempts);
  });

  test('a response slower than the timeout fails retryable, naming the model and the limit', async () => {
    server.enqueue('rewrite_plan', { delayMs: 3000, then: { json: { method: 'hyde', step_back_question: '', hyde_document: 'x' } } });
    const started = Date.now();
    const failure = await failureOf(attempt('planRewrite', 1, { timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(2500);
    expect([failure.type, failure.nonRetryable]).toEqual(['SERVICE_UNAVAILABLE', false]);
    expect(shown(failure)).toMatchInlineSnapshot(`"fast-mini (rewrite_plan) at HOST did not answer within 300 ms"`);
  });

  test('an unreachable endpoint fails retryable', async () => {
    const closed = await startFakeOpenAiServer({ apiKey: API_KEY });
    await closed.close(); // a loopback port nobody listens on
    const failure = await failureOf(attempt('planComplexity', 1, { baseUrl: closed.baseUrl }));
    expect([failure.type, failure.nonRetryable]).toEqual(['SERVICE_UNAVAILABLE', false]);
    expect(shown(failure)).toMatch(/^fast-mini \(complexity_result\) at HOST is unreachable: Connection error\./);
  });
});

describe('configuration errors are terminal and name the variable (spec §4.14)', () => {
  test.each<[string, Call, Partial<OpenAiChatModelsOptions>, string]>([
    ['no key', 'gradeEvidence', { apiKey: undefined }, 'OPENAI_API_KEY is not set'],
    ['no FAST_MODEL', 'planComplexity', { fastModel: undefined }, 'FAST_MODEL is not set'],
    ['no GRADE_MODEL', 'gradeEvidence', { gradeModel: '' }, 'GRADE_MODEL is not set'],
  ])('%s → MODEL_NOT_CONFIGURED before any request', async (_label, call, options, message) => {
    const failure = await failureOf(attempt(call, 1, options));
    expect([failure.type, failure.nonRetryable]).toEqual(['MODEL_NOT_CONFIGURED', true]);
    expect(failure.message).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  test('a rejected key (401) is terminal and the key never appears', async () => {
    const failure = await failureOf(attempt('planRewrite', 1, { apiKey: 'sk-wrong-SECRET-key' }));
    expect([failure.type, failure.nonRetryable]).toEqual(['MODEL_NOT_CONFIGURED', true]);
    expect(failure.message).not.toContain('sk-wrong-SECRET-key');
    expect(shown(failure)).toMatchInlineSnapshot(`"fast-mini (rewrite_plan) at HOST rejected OPENAI_API_KEY: 401 Incorrect API key provided: sk-***. (request req_fake_N); set a valid key"`);
  });
});
