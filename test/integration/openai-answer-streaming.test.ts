import { createOfflineChatModels } from '../../activities/adapters/offline-chat-models';
import { createOpenAiChatModels } from '../../activities/adapters/openai-chat-models';
import type { AnswerRequest } from '../../activities/ports';
import type { AnswerTextEvent } from '../../core/model-output/answer-text-event';
import type { OutputModeSetting } from '../../core/model-output/output-mode';
import { AnswerDraft } from '../../core/schemas/answer';
import type { ModelCallRecord } from '../../core/schemas/model-call';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { startFakeOpenAiServer, type FakeOpenAiServer, type ScriptedReply } from '../support/fake-openai-server';
import { PROFILES, startProviderFake, type ProviderFake } from '../support/provider-fakes';

/*
 * The answer writer's model call streams its answer text (issue 25 §2, the model side), through the real openai SDK
 * against the loopback fakes answering `stream: true` as OpenAI does (test/support/openai-stream.ts): the `answer`
 * field's text arrives in deltas on every rung of the ladder, a re-ask or a step down first says `restart`, and the
 * validated draft and the model-call record are those of the same call made without a listener.
 */

const API_KEY = 'sk-test-STREAM-0123456789';
const Q = '丹瑾是什么属性？';
const DOCS: Chunk[] = [{ chunk_id: 'c1', filename: '角色.md', page_number: 1, text: '丹瑾是一名湮灭属性的角色。她擅长近战。' }];
const CONTEXT = '[1] 角色.md (Page 1):\n丹瑾是一名湮灭属性的角色。她擅长近战。'; // spec §4.4.2 rendering of DOCS
// Quotes, a backslash, a newline and an astral character: each is escaped or split somewhere in the chunks.
const GOOD = { answer: '丹瑾是"湮灭"属性[1]。😀 路径 C:\\x\n第二行', citations: [{ marker: 1, doc_index: 1, quote: '丹瑾是一名湮灭属性的角色' }] };
const REQUEST: AnswerRequest = { question: Q, context: CONTEXT, evidence: DOCS };

let server: FakeOpenAiServer;
let providers: ProviderFake;
beforeAll(async () => {
  server = await startFakeOpenAiServer({ apiKey: API_KEY, streaming: { chunks: 9 } });
  providers = await startProviderFake(API_KEY);
});
afterAll(async () => {
  await server?.close();
  await providers?.close();
});
beforeEach(() => {
  server.reset();
  providers.log.length = 0;
  providers.resetModel();
});

/** A fresh adapter each time: nothing learnt by an earlier call, so every call walks the ladder from its top. */
const scripted = (outputMode: OutputModeSetting = 'auto') =>
  createOpenAiChatModels({ apiKey: API_KEY, baseUrl: server.baseUrl, fastModel: 'fast-mini', gradeModel: 'grade-large', answerModel: 'answer-large', outputMode });
const provider = (profile: string) =>
  createOpenAiChatModels({ apiKey: API_KEY, baseUrl: providers.baseUrlOf(profile), fastModel: PROFILES[profile]?.model, gradeModel: PROFILES[profile]?.model });

type Written = { draft: unknown; records: ModelCallRecord[]; events: AnswerTextEvent[] };

async function write(models: ReturnType<typeof createOpenAiChatModels>, stream: boolean): Promise<Written> {
  const events: AnswerTextEvent[] = [];
  const records: ModelCallRecord[] = [];
  const draft = await models.writeAnswer({ ...REQUEST, ...(stream ? { onText: (event: AnswerTextEvent) => events.push(event) } : {}) }, (record) => records.push(record));
  return { draft, records, events };
}

/** What a listener shows at the end: the deltas since the last restart. */
const shown = (events: AnswerTextEvent[]) => {
  const restart = events.map((event) => event.kind).lastIndexOf('restart');
  return events.slice(restart + 1).map((event) => (event.kind === 'delta' ? event.text : '')).join('');
};
const kinds = (events: AnswerTextEvent[]) => events.map((event) => event.kind).filter((kind, i, all) => kind !== 'delta' || all[i - 1] !== 'delta');

/** The same call with and without a listener, on the scripted server: the same replies queued for each. */
async function bothOnScripted(outputMode: OutputModeSetting, ...replies: ScriptedReply[]) {
  server.enqueue('answer_draft', ...replies);
  const streamed = await write(scripted(outputMode), true);
  const streamedBodies = server.requests.map((request) => request.body);
  server.reset();
  server.enqueue('answer_draft', ...replies);
  const plain = await write(scripted(outputMode), false);
  const plainBodies = server.requests.map((request) => request.body);
  return { streamed, plain, streamedBodies, plainBodies };
}

/** The same call with and without a listener through a provider profile. */
async function bothOnProvider(profile: string) {
  const streamed = await write(provider(profile), true);
  const streamedLog = providers.log.map((entry) => entry.status);
  providers.resetModel();
  providers.log.length = 0;
  const plain = await write(provider(profile), false);
  return { streamed, plain, streamedLog, plainLog: providers.log.map((entry) => entry.status) };
}

describe('every rung streams the answer text', () => {
  test('json_schema (OpenAI): the deltas concatenate to the validated answer; the request asks for a stream, nothing else changes', async () => {
    const { streamed, plain, streamedBodies, plainBodies } = await bothOnScripted('auto', { json: GOOD });
    expect(AnswerDraft.parse(streamed.draft).answer).toBe(GOOD.answer);
    expect(streamed.events.every((event) => event.kind === 'delta')).toBe(true);
    expect(streamed.events.length).toBeGreaterThan(1); // really in pieces, not one delta at the end
    expect(shown(streamed.events)).toBe(GOOD.answer);
    expect(streamed.draft).toEqual(plain.draft);
    expect(streamed.records).toEqual(plain.records);
    // Without a listener the body is what it always was; with one, it only adds `stream: true`.
    expect(plainBodies[0]).not.toHaveProperty('stream');
    expect(streamedBodies[0]).toEqual({ ...plainBodies[0], stream: true });
  });

  test('tools (MODEL_OUTPUT_MODE=tools): the text comes from the forced call’s arguments', async () => {
    const { streamed, plain, streamedBodies } = await bothOnScripted('tools', { json: GOOD });
    expect(streamedBodies[0]).toMatchObject({ stream: true, tool_choice: { type: 'function', function: { name: 'answer_draft' } } });
    expect(streamed.events.length).toBeGreaterThan(1);
    expect(shown(streamed.events)).toBe(GOOD.answer);
    expect(streamed.draft).toEqual(plain.draft);
    expect(streamed.records).toEqual([expect.objectContaining({ outputMode: 'tools', requests: 1, steps: [] })]);
  });

  test('DeepSeek: json_schema refused (400, no delta sent) → restart, then the tools rung streams the tool call', async () => {
    const { streamed, plain, streamedLog, plainLog } = await bothOnProvider('deepseek');
    expect(streamedLog).toEqual([400, 200]);
    expect(plainLog).toEqual(streamedLog);
    expect(kinds(streamed.events)).toEqual(['restart', 'delta']);
    expect(streamed.events[0]).toEqual({ kind: 'restart', reason: 'json_schema refused, asking again with tools: 400 This response_format type is unavailable now' });
    expect(shown(streamed.events)).toBe(AnswerDraft.parse(streamed.draft).answer);
    expect(streamed.draft).toEqual(plain.draft);
    expect(streamed.records).toEqual(plain.records);
    expect(streamed.records[0]).toMatchObject({ outputMode: 'tools', requests: 2 });
  });

  test('Qwen thinking: three rungs refused, the prompt rung streams a fenced reply after prose', async () => {
    const { streamed, plain, streamedLog } = await bothOnProvider('qwen-thinking');
    expect(streamedLog).toEqual([400, 400, 400, 200]);
    expect(kinds(streamed.events)).toEqual(['restart', 'restart', 'restart', 'delta']);
    const answer = AnswerDraft.parse(streamed.draft).answer;
    expect(answer).toBe('丹瑾是一名湮灭属性的角色[1]。'); // provider-fakes' model: the first sentence of snippet [1], cited
    expect(shown(streamed.events)).toBe(answer);
    expect(streamed.draft).toEqual(plain.draft);
    expect(streamed.records).toEqual(plain.records);
    expect(streamed.records[0]).toMatchObject({ outputMode: 'prompt', requests: 4 });
  });
});

describe('a re-ask inside the call is a restart', () => {
  test('an invalid first reply: its text was shown, then restart, then the second reply’s text', async () => {
    const invalid = { answer: '丹瑾是衍射', citations: [{ marker: 'one' }] };
    const { streamed, plain } = await bothOnScripted('auto', { json: invalid }, { json: GOOD });
    expect(kinds(streamed.events)).toEqual(['delta', 'restart', 'delta']);
    const restart = streamed.events.find((event) => event.kind === 'restart');
    expect(restart?.kind === 'restart' && restart.reason).toMatch(/^the reply could not be used, asking once more: it violates the schema: /);
    expect(streamed.events.slice(0, streamed.events.indexOf(restart as AnswerTextEvent)).map((event) => (event.kind === 'delta' ? event.text : '')).join('')).toBe(invalid.answer);
    expect(shown(streamed.events)).toBe(GOOD.answer);
    expect(streamed.draft).toEqual(plain.draft);
    expect(streamed.records).toEqual(plain.records);
    expect(streamed.records[0]?.steps.map((step) => step.kind)).toEqual(['reask']);
  });

  test('DeepSeek thinking: two rungs refused, a blank json_object reply (nothing shown), restart, the re-asked reply streams', async () => {
    const { streamed, plain, streamedLog } = await bothOnProvider('deepseek-thinking');
    expect(streamedLog).toEqual([400, 400, 200, 200]);
    expect(kinds(streamed.events)).toEqual(['restart', 'restart', 'restart', 'delta']);
    expect(streamed.events[2]).toEqual({ kind: 'restart', reason: 'the reply could not be used, asking once more: deepseek-reasoner returned an empty reply' });
    expect(shown(streamed.events)).toBe(AnswerDraft.parse(streamed.draft).answer);
    expect(streamed.draft).toEqual(plain.draft);
    expect(streamed.records).toEqual(plain.records);
  });
});

describe('failures are those of the non-streamed call', () => {
  test('a refusal streamed as delta.refusal: MODEL_OUTPUT_INVALID with the same message, nothing shown', async () => {
    const events: AnswerTextEvent[] = [];
    const failure = async (onText?: (event: AnswerTextEvent) => void) => {
      server.reset();
      server.enqueue('answer_draft', { refusal: 'I cannot help with that.' });
      return scripted()
        .writeAnswer({ ...REQUEST, ...(onText ? { onText } : {}) })
        .then(
          () => new Error('expected the call to fail'),
          (error: unknown) => error as Error,
        );
    };
    const streamed = await failure((event) => events.push(event));
    const plain = await failure();
    expect(streamed).toMatchObject({ code: 'MODEL_OUTPUT_INVALID', message: 'answer-large refused: "I cannot help with that."' });
    expect(streamed.message).toBe(plain.message);
    expect(events).toEqual([]);
  });

  test('a reply cut off at the token limit: the same error, after its text was shown', async () => {
    server.enqueue('answer_draft', { content: '{"answer":"丹瑾是', finishReason: 'length' });
    const events: AnswerTextEvent[] = [];
    await expect(scripted().writeAnswer({ ...REQUEST, onText: (event) => events.push(event) })).rejects.toMatchObject({
      message: 'answer-large reply was cut off at the token limit (finish_reason "length")',
    });
    expect(shown(events)).toBe('丹瑾是');
  });
});

test('a model writing over time (tokenDelayMs): the first text arrives long before the answer is complete', async () => {
  server.setStreaming({ chunks: 10, tokenDelayMs: 40 });
  server.enqueue('answer_draft', { json: GOOD });
  const started = Date.now();
  let first: number | undefined;
  const draft = await scripted().writeAnswer({ ...REQUEST, onText: () => (first ??= Date.now() - started) });
  const total = Date.now() - started;
  expect(AnswerDraft.parse(draft).answer).toBe(GOOD.answer);
  // 10 chunks 40 ms apart, plus the role chunk: ≥ 400 ms in all; the answer's first characters are in the 2nd chunk.
  expect(total).toBeGreaterThanOrEqual(400);
  expect(first).toBeDefined();
  expect(total - (first as number)).toBeGreaterThanOrEqual(200);
});

test('the offline writer tells its extractive answer a sentence at a time', async () => {
  const events: AnswerTextEvent[] = [];
  const draft = AnswerDraft.parse(await createOfflineChatModels().writeAnswer({ question: '丹瑾是什么属性？她擅长什么？', context: CONTEXT, evidence: DOCS, onText: (event) => events.push(event) }));
  expect(draft.answer).not.toBe('');
  expect(events.every((event) => event.kind === 'delta')).toBe(true);
  expect(shown(events)).toBe(draft.answer);
});
