import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createOpenAiChatModels } from '../../activities/adapters/openai-chat-models';
import { modelActivities } from '../../activities/model-activities';
import type { ModelCallRecord } from '../../core/schemas/model-call';
import { PROFILES, startProviderFake, type ProviderFake } from '../support/provider-fakes';

/*
 * The structured-output ladder through the real openai SDK (issue 24 §1), against the provider profiles of
 * test/support/provider-fakes.ts: what each rung refusal teaches, what is remembered, what a forced setting does, and
 * that the providers' odd error bodies (Gemini's array, old vLLM's flat object, LM Studio's bare string) are quoted
 * as the provider's own sentence rather than as the body's JSON text.
 */

const API_KEY = 'sk-ladder-0123456789';
let fake: ProviderFake;
beforeAll(async () => {
  fake = await startProviderFake(API_KEY);
});
afterAll(async () => fake?.close());
beforeEach(() => {
  fake.log.length = 0;
  fake.resetModel();
});

const modelsFor = (profile: string, options: { outputMode?: 'auto' | 'json_schema' | 'tools' | 'json_object' | 'prompt'; temperature?: number; onLearn?: (line: string) => void } = {}) =>
  createOpenAiChatModels({ apiKey: API_KEY, baseUrl: fake.baseUrlOf(profile), fastModel: PROFILES[profile]?.model, gradeModel: PROFILES[profile]?.model, ...options });

const inActivity = <T>(fn: () => Promise<T>): Promise<T> =>
  new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR') }).run<[], T, () => Promise<T>>(fn);

/** The failure of an activity expected to fail. */
const failureOf = (promise: Promise<unknown>): Promise<Error & { type?: string }> =>
  promise.then(
    () => {
      throw new Error('expected the activity to fail');
    },
    (error: unknown) => error as Error & { type?: string },
  );

const statusesOf = (profile: string) => fake.log.filter((entry) => entry.profile === profile).map((entry) => entry.status);

describe('auto: each refusal moves one rung down, once for the life of the process', () => {
  test('Gemini: json_schema and tools refused for additionalProperties (array bodies), json_object kept; the second call goes straight there', async () => {
    const learnt: string[] = [];
    const models = modelsFor('gemini', { onLearn: (line) => learnt.push(line) });
    const records: ModelCallRecord[] = [];
    expect(await models.planComplexity('问题一', (record) => records.push(record))).toMatchObject({ complexity: 'simple' });
    expect(await models.planComplexity('问题二', (record) => records.push(record))).toMatchObject({ complexity: 'simple' });
    expect(statusesOf('gemini')).toEqual([400, 400, 200, 200]);
    expect(records[0]).toMatchObject({ schema: 'complexity_result', model: 'gemini-2.0-flash', outputMode: 'json_object', temperature: 0, requests: 3 });
    // The array body is read as Gemini's sentence (normalize-error-body.ts), not as the array's JSON text.
    expect(records[0]?.steps.map((step) => [step.kind, step.from, step.to])).toEqual([['output_mode', 'json_schema', 'tools'], ['output_mode', 'tools', 'json_object']]);
    expect(records[0]?.steps[0]?.reason).toBe(`400 Invalid JSON payload received. Unknown name "additionalProperties" at 'generation_config.response_schema': Cannot find field.`);
    expect(records[1]).toMatchObject({ outputMode: 'json_object', requests: 1, steps: [] });
    expect(learnt).toEqual([expect.stringMatching(/^model gemini-2\.0-flash at .*: json_schema refused, using json_object from now on/)]);
    expect(models.plans?.()[0]).toMatchObject({ outputMode: 'json_object', outputReason: expect.stringMatching(/^auto: json_schema refused: 400 Invalid JSON payload/) });
    // No $schema is ever sent, so Gemini never refuses that keyword.
    expect(JSON.stringify(fake.log.map((entry) => entry.body))).not.toContain('$schema');
  });

  test("old vLLM's flat error body keeps its message", async () => {
    const records: ModelCallRecord[] = [];
    await modelsFor('vllm-old').planRewrite('问题', (record) => records.push(record));
    expect(records[0]?.steps[0]?.reason).toContain("Input should be 'text' or 'json_object'");
  });

  test('an Azure deployment of a reasoning model: the temperature refused once, then never sent', async () => {
    const models = modelsFor('azure-reasoning-deployment');
    const records: ModelCallRecord[] = [];
    await models.planComplexity('问题一', (record) => records.push(record));
    await models.planComplexity('问题二', (record) => records.push(record));
    expect(statusesOf('azure-reasoning-deployment')).toEqual([400, 200, 200]);
    expect(fake.log.map((entry) => 'temperature' in entry.body)).toEqual([true, false, false]);
    expect(records.map((record) => [record.outputMode, record.temperature, record.steps.map((step) => step.kind)])).toEqual([
      ['json_schema', null, ['temperature']],
      ['json_schema', null, []],
    ]);
    expect(models.plans?.()[0]?.temperatureReason).toMatch(/^omitted: the endpoint refused temperature \(400 Unsupported parameter: 'temperature'/);
  });

  test('gpt-5-mini is known: no temperature from the first request', async () => {
    await modelsFor('openai-reasoning').planComplexity('问题');
    expect(statusesOf('openai-reasoning')).toEqual([200]);
    expect(fake.log[0]?.body).not.toHaveProperty('temperature');
  });

  test("DeepSeek thinking: a blank json_object reply is re-asked once, quoting why", async () => {
    const records: ModelCallRecord[] = [];
    const grade = await modelsFor('deepseek-thinking').gradeEvidence('问题', '[1] a.md (Page 1):\n正文', [], (record) => records.push(record));
    expect(grade).toMatchObject({ route: 'rewrite' });
    expect(records[0]).toMatchObject({ outputMode: 'json_object', requests: 4 });
    expect(records[0]?.steps.map((step) => step.kind)).toEqual(['output_mode', 'output_mode', 'reask']);
    expect(records[0]?.steps[2]?.reason).toBe('deepseek-reasoner returned an empty reply');
    const reask = fake.log.at(-1)?.body.messages as { role: string; content: string }[];
    expect(reask.map((message) => message.role)).toEqual(['user', 'user']); // a blank reply is not echoed back
    expect(reask[1]?.content).toContain('Your reply could not be used: deepseek-reasoner returned an empty reply');
  });

  test('Zhipu GLM: an unexplained 400 tries the next rung, and only the rung that worked is remembered', async () => {
    const models = modelsFor('glm');
    await models.planComplexity('问题');
    expect(statusesOf('glm')).toEqual([400, 400, 200]);
    expect(models.plans?.()[0]?.outputMode).toBe('json_object');
  });
});

describe('forced settings are never changed behind the user', () => {
  test('MODEL_OUTPUT_MODE=json_object on LM Studio: one request, INVALID_CONFIG naming the setting and the fix', async () => {
    const failure = await failureOf(inActivity(() => modelActivities(modelsFor('lmstudio', { outputMode: 'json_object' })).planComplexity({ question: '问题' })));
    expect(statusesOf('lmstudio')).toEqual([400]);
    expect(failure).toMatchObject({ type: 'INVALID_CONFIG' });
    expect(failure.message).toContain(`400 "'response_format.type' must be 'json_schema' or 'text'"`);
    expect(failure.message).toContain('it refuses MODEL_OUTPUT_MODE=json_object (response_format json_object, the schema in the prompt): unset MODEL_OUTPUT_MODE');
  });

  test('MODEL_TEMPERATURE=0 on a reasoning model: INVALID_CONFIG saying to unset it', async () => {
    const failure = await failureOf(inActivity(() => modelActivities(modelsFor('openai-reasoning', { temperature: 0 })).planComplexity({ question: '问题' })));
    expect(statusesOf('openai-reasoning')).toEqual([400]);
    expect(failure).toMatchObject({ type: 'INVALID_CONFIG' });
    expect(failure.message).toContain('it refuses MODEL_TEMPERATURE=0: unset MODEL_TEMPERATURE');
  });

  test('MODEL_OUTPUT_MODE=prompt on the reference: no response_format, no tools, the schema in the prompt', async () => {
    await modelsFor('openai', { outputMode: 'prompt' }).planComplexity('问题');
    expect(fake.log[0]?.body).not.toHaveProperty('response_format');
    expect(fake.log[0]?.body).not.toHaveProperty('tools');
    expect(JSON.stringify(fake.log[0]?.body.messages)).toContain('conform to the JSON Schema \\"complexity_result\\"');
  });
});

test('the activity returns one model-call record per call, beside its data (RunDetail reads them from the history)', async () => {
  const result = await inActivity(() => modelActivities(modelsFor('deepseek')).planRewrite({ question: '问题', rewriteCount: 0 }));
  expect(result.modelCalls).toEqual([
    { schema: 'rewrite_plan', model: 'deepseek-chat', endpoint: expect.stringMatching(/^127\.0\.0\.1:\d+$/), outputMode: 'tools', temperature: 0, requests: 2, steps: [{ kind: 'output_mode', from: 'json_schema', to: 'tools', reason: '400 This response_format type is unavailable now' }] },
  ]);
  expect(result.producedBy).toMatch(/\[deepseek-chat: tools, temperature 0\]$/);
});
