import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { seededRandom } from '../knowledge/common';

/*
 * The model of bench/streaming.ts (issue 25 §3): an OpenAI-compatible chat-completions endpoint on loopback that
 * answers as a model that takes `llmMs` to its first token and then writes one token every `tokenMs`, so both
 * ragtime (the real `openai` SDK path of the answer writer, `stream: true`) and the LangGraph.js peer (ChatOpenAI,
 * streamMode "messages") read the same writer. It records, per request, when each write left it and how much of the
 * answer's text was out by then: the writer's own first token, the time every listener is compared with.
 *
 * - evidence_grade (ragtime's grader): `{route: "answer"}` after llmMs × (1 ± jitter), not streamed.
 * - answer_draft (ragtime's writer): `{"answer": "<tokens>", "citations": [...]}`; streamed, the `{"answer":"` prefix
 *   goes out with the first token and the rest of the JSON with the last, so the answer's first token leaves at
 *   llmMs, as the peer's does; on the tools rung the same text comes as the forced function's arguments.
 * - no response format (the peer's answer node): the same tokens as plain text.
 * The SSE framing is openai-node's ChatCompletionChunk, as test/support/openai-stream.ts sends it.
 */

export type StreamingLlmOptions = { llmMs: number; tokenMs: number; tokens: number; jitter: number; seed: number };

/** One answer request as the writer sent it: `writes[i]` is when write i left and the answer characters out by then. */
export type WriterRecord = { kind: 'answer_draft' | 'text'; receivedAt: number; writes: Array<{ at: number; chars: number }> };

export type StreamingLlmServer = {
  baseUrl: string;
  /** The answer requests received at or after `since` (epoch ms), in order. */
  answersSince(since: number): WriterRecord[];
  close(): Promise<void>;
};

/** Epoch milliseconds with sub-millisecond precision, comparable across processes of one machine. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/** One sentence of the answer, cut into tokens: every sentence cites [1], so the verifier holds it (DESIGN §3.6). */
const SENTENCE = ['丹瑾', '是', '湮灭', '属性', '的', '角色', '[1]', '。'];
/** Occurs in every document of the bench retrieval (`${query}：湮灭属性。`, support/scenarios.ts). */
const QUOTE = '湮灭属性';
const GRADE = { relevance: 'strong', answerability: 'sufficient', ambiguity: 'none', route: 'answer', confidence: 0.9 };

/** `count` tokens rounded up to whole sentences, so that no sentence is left uncited. */
export function answerTokens(count: number): string[] {
  const sentences = Math.max(1, Math.ceil(count / SENTENCE.length));
  return Array.from({ length: sentences }, () => SENTENCE).flat();
}

export async function startStreamingLlmServer(options: StreamingLlmOptions): Promise<StreamingLlmServer> {
  const random = seededRandom(options.seed);
  const stretched = (ms: number) => (ms <= 0 ? 0 : ms * (1 + options.jitter * (2 * random() - 1)));
  const tokens = answerTokens(options.tokens);
  const answer = tokens.join('');
  const draft = JSON.stringify({ answer, citations: [{ marker: 1, doc_index: 1, quote: QUOTE }] });
  const prefix = '{"answer":"';
  if (!draft.startsWith(prefix + answer)) throw new Error('the answer tokens must need no JSON escaping');
  const suffix = draft.slice(prefix.length + answer.length);
  const records: WriterRecord[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let served = 0;
  const later = (ms: number, then: () => void) => {
    const timer = setTimeout(() => (timers.delete(timer), then()), ms);
    timers.add(timer);
  };

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const stream = (res: http.ServerResponse, body: Record<string, unknown>, kind: WriterRecord['kind']) => {
    const id = `chatcmpl-bench-${served}`;
    const forced = (body.tool_choice as { function?: { name?: string } } | undefined)?.function?.name;
    const usage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, system_fingerprint: 'fp_bench', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(usage ? { usage: null } : {}) })}\n\n`;
    const piece = (text: string) => (forced ? chunk({ tool_calls: [{ index: 0, function: { arguments: text } }] }) : chunk({ content: text }));
    const head = forced
      ? chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_${id}`, type: 'function', function: { name: forced, arguments: '' } }], refusal: null })
      : chunk({ role: 'assistant', content: '', refusal: null });
    const tail = [
      chunk({}, forced ? 'tool_calls' : 'stop'),
      ...(usage ? [`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, choices: [], usage: { prompt_tokens: 10, completion_tokens: tokens.length, total_tokens: 10 + tokens.length } })}\n\n`] : []),
      'data: [DONE]\n\n',
    ].join('');
    const record: WriterRecord = { kind, receivedAt: epochMs(), writes: [] };
    records.push(record);
    const asJson = kind === 'answer_draft';
    let chars = 0;
    let next = 0;
    const write = () => {
      if (res.destroyed) return;
      const token = tokens[next] as string;
      const last = next === tokens.length - 1;
      let out = next === 0 ? head + (asJson ? piece(prefix) : '') : '';
      out += piece(token) + (last && asJson ? piece(suffix) : '') + (last ? tail : '');
      chars += token.length;
      if (next === 0) res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.write(out);
      record.writes.push({ at: epochMs(), chars });
      next += 1;
      if (last) res.end();
      else later(options.tokenMs, write);
    };
    later(stretched(options.llmMs), write);
  };

  const chat = (res: http.ServerResponse, body: Record<string, unknown>) => {
    const format = body.response_format as { json_schema?: { name?: string } } | undefined;
    const tools = body.tools as Array<{ function?: { name?: string } }> | undefined;
    const schema = format?.json_schema?.name ?? tools?.[0]?.function?.name;
    if (schema === 'evidence_grade') {
      const forced = (body.tool_choice as { function?: { name?: string } } | undefined)?.function?.name;
      const message = forced
        ? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: `call_${served}`, type: 'function', function: { name: forced, arguments: JSON.stringify(GRADE) } }] }
        : { role: 'assistant', content: JSON.stringify(GRADE), refusal: null };
      const reply = { id: `chatcmpl-bench-${served}`, object: 'chat.completion', created: 1_700_000_000, model: body.model, choices: [{ index: 0, message, finish_reason: forced ? 'tool_calls' : 'stop', logprobs: null }], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } };
      later(stretched(options.llmMs), () => json(res, 200, reply));
      return;
    }
    if (schema !== undefined && schema !== 'answer_draft') {
      json(res, 400, { error: { message: `the streaming bench model answers evidence_grade and answer_draft, not ${schema}`, type: 'invalid_request_error', param: null, code: null } });
      return;
    }
    if (body.stream !== true) {
      json(res, 400, { error: { message: 'the streaming bench model streams its answers: send stream: true', type: 'invalid_request_error', param: null, code: null } });
      return;
    }
    stream(res, body, schema === 'answer_draft' ? 'answer_draft' : 'text');
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (data: Buffer) => chunks.push(data));
    req.on('end', () => {
      served += 1;
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        json(res, 404, { error: { message: `unknown route ${req.method} ${path}`, type: 'invalid_request_error', param: null, code: null } });
        return;
      }
      try {
        chat(res, JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>);
      } catch {
        json(res, 400, { error: { message: 'request body is not JSON', type: 'invalid_request_error', param: null, code: null } });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    answersSince: (since) => records.filter((record) => record.receivedAt >= since),
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
