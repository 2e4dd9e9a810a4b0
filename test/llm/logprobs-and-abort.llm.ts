import OpenAI from 'openai';
import { formatDocs } from '../../core/graph/format-docs';
import { LOCAL_MODEL } from '../../core/local-model';
import { buildAnswerPrompt } from '../../core/prompts/answer-prompt';
import { buildYesNoGradePrompt } from '../../core/prompts/yes-no-grade-prompt';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { assertReachable } from '../support/services';

/*
 * The local model service of `make llm` (issue 43 §1, §3), with its real weights: OpenAI's `logprobs` /
 * `top_logprobs` on a yes/no question (what the grade by probability reads), and a request whose client goes away
 * stops the model within 2 s — also while it is still reading a long prompt, which LlamaChat alone did not stop
 * (measured before the fix: a 5,000-token prompt closed after 2 s held the model 9 minutes on this busy machine) —
 * and the grade's prompts and the answer's share a prefix the server reads once (OpenAI's `cached_tokens`).
 */

const LLM_PORT = Number(process.env.LLM_PORT ?? LOCAL_MODEL.port);
const BASE_URL = `http://127.0.0.1:${LLM_PORT}/v1`;
const openai = new OpenAI({ baseURL: BASE_URL, apiKey: 'local', maxRetries: 0, timeout: 300_000 });

const inFlight = async (): Promise<number> => ((await (await fetch(`http://127.0.0.1:${LLM_PORT}/healthz`)).json()) as { requests_in_flight: number }).requests_in_flight;

async function waitUntilIdle(limitMs: number): Promise<number> {
  const started = performance.now();
  while ((await inFlight()) > 0) {
    if (performance.now() - started > limitMs) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return performance.now() - started;
}

beforeAll(async () => {
  await assertReachable('the local model service (make llm)', `127.0.0.1:${LLM_PORT}`);
  // Another test's request may still hold the model: start from an idle one.
  await waitUntilIdle(300_000);
});

test('top_logprobs: the first token of a yes/no answer, with the likeliest alternatives and their log-probabilities', async () => {
  const completion = await openai.chat.completions.create({
    model: LOCAL_MODEL.id,
    messages: [
      { role: 'system', content: 'Answer with one word: yes or no.' },
      { role: 'user', content: 'Evidence: The Aurora X2 router has a two-year warranty.\nDoes the evidence say how long the Aurora X2 warranty is?' },
    ],
    logprobs: true,
    top_logprobs: 5,
    max_tokens: 1,
  });
  const first = completion.choices[0]?.logprobs?.content?.[0];
  console.log(`top_logprobs: ${JSON.stringify(first?.top_logprobs.map(({ token, logprob }) => [token, Math.round(logprob * 1000) / 1000]))}`);
  expect(first?.top_logprobs).toHaveLength(5);
  const probability = (word: string) => (first?.top_logprobs ?? []).filter((top) => top.token.trim().toLowerCase() === word).reduce((sum, top) => sum + Math.exp(top.logprob), 0);
  expect(probability('yes')).toBeGreaterThan(0.5);
  expect(probability('yes')).toBeGreaterThan(probability('no'));
  // The chosen token is the likeliest (greedy), and its own logprob is the top one's.
  expect(first?.token).toBe(first?.top_logprobs[0]?.token);
  expect(first?.logprob).toBeCloseTo(first?.top_logprobs[0]?.logprob ?? 0, 6);
  expect(completion.choices[0]?.message.content).toBe(first?.token);
});

const longPrompt = Array.from({ length: 300 }, (_, i) => `Note ${i}: the quick brown fox number ${i} jumps over the lazy dog near river ${i * 7}.`).join(' ');

test.each([
  ['while it writes a long answer', 'Write a story about a dragon of at least 800 words.', 3_000],
  ['while it reads a long prompt (about 5,000 tokens)', `${longPrompt}\nSummarize the notes.`, 3_000],
])('a request whose client goes away %s stops within 2 s', async (_, content, closeAfterMs) => {
  const abort = new AbortController();
  const request = openai.chat.completions.create({ model: LOCAL_MODEL.id, messages: [{ role: 'user', content }], max_tokens: 1500 }, { signal: abort.signal }).catch((error: unknown) => error);
  await new Promise((resolve) => setTimeout(resolve, closeAfterMs));
  expect(await inFlight()).toBe(1);
  abort.abort();
  expect(await request).toBeInstanceOf(Error);
  const stoppedMs = await waitUntilIdle(30_000);
  console.log(`closed request: the model was free ${Math.round(stoppedMs)} ms after the client went away`);
  expect(stoppedMs).toBeLessThan(2_000);
});

test('logprobs with response_format is refused with a 400 that names logprobs', async () => {
  const refused = await openai.chat.completions
    .create({ model: LOCAL_MODEL.id, messages: [{ role: 'user', content: 'x' }], logprobs: true, response_format: { type: 'json_object' } })
    .catch((error: unknown) => error);
  expect(refused).toMatchObject({ status: 400 });
  expect(String((refused as Error).message)).toMatch(/logprobs are supported without response_format/);
});

test('the evidence is read once (issue 43 §3): the grade\'s yes/no calls and the answer share their prompt prefix, which the server does not read again', async () => {
  const evidence: Chunk[] = [
    { filename: 'warranty.md', text: 'The Aurora X2 router has a two-year warranty. Repairs under warranty are free of charge.' },
    { filename: 'setup.md', text: 'Plug the Aurora X2 router in, wait for the green light, then open the app to finish the setup.' },
    { filename: 'faq.md', text: 'The Aurora X2 supports Wi-Fi 6 and has four Ethernet ports.' },
  ];
  const question = 'How long is the Aurora X2 warranty?';
  const cached = (usage: unknown) => (usage as { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } });
  const grades = [];
  for (const index of [0, 1]) {
    grades.push(await openai.chat.completions.create({ model: LOCAL_MODEL.id, messages: [buildYesNoGradePrompt(question, evidence, index)], max_tokens: 1, logprobs: true, top_logprobs: 10 }));
  }
  const answer = await openai.chat.completions.create({
    model: LOCAL_MODEL.id,
    messages: [buildAnswerPrompt(question, formatDocs(evidence))],
    max_tokens: 200,
    response_format: { type: 'json_schema', json_schema: { name: 'answer_draft', schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } } },
  });
  const [second, written] = [cached(grades[1]?.usage), cached(answer.usage)];
  console.log(`second yes/no: ${second.prompt_tokens_details.cached_tokens} of ${second.prompt_tokens} prompt tokens cached; answer: ${written.prompt_tokens_details.cached_tokens} of ${written.prompt_tokens}`);
  // Each reads only its own new candidate and the few tokens of its question or the chat template's turn end.
  const firstPrompt = cached(grades[0]?.usage).prompt_tokens;
  expect(second.prompt_tokens_details.cached_tokens).toBeGreaterThan(firstPrompt - 40);
  expect(written.prompt_tokens_details.cached_tokens).toBeGreaterThan(second.prompt_tokens - 40);
});
