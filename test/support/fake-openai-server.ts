/**
 * A scripted OpenAI-compatible HTTP server on loopback, speaking the real wire protocol, so tests drive the real
 * `openai` SDK (DESIGN §6 "Chat models"): POST /v1/chat/completions answers from a script keyed by the request's
 * response_format.json_schema.name, POST /v1/embeddings returns deterministic vectors. Every request is recorded.
 * A request with `stream: true` gets the same reply as server-sent chunks (test/support/openai-stream.ts), in chunks
 * paced by the server's `streaming` option; when the request forces a function (the ladder's tools rung), the streamed
 * reply is that function's call, as OpenAI sends it (a non-streamed one keeps the reply in content, as before).
 */
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamCompletion, type StreamPacing } from './openai-stream';

/** One scripted answer to a chat-completions request. */
export type ScriptedReply =
  /** A well-formed completion whose content is `JSON.stringify(json)` (valid JSON, schema-valid or not). */
  | { json: unknown }
  /** A well-formed completion with this raw content (e.g. text that is not JSON) and finish reason. */
  | { content: string; finishReason?: 'stop' | 'length' | 'content_filter' }
  /** The model refuses (message.refusal set, content null). */
  | { refusal: string }
  /** An HTTP error with an OpenAI error body, e.g. 429 with `retry-after`, or 500. */
  | { status: number; message?: string; headers?: Record<string, string> }
  /** Waits `ms` before sending `then` (a response slower than the client's timeout). */
  | { delayMs: number; then: ScriptedReply };

export type RecordedRequest = {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
  /** response_format.json_schema.name of a chat request (or undefined). */
  schemaName: string | undefined;
};

export type FakeOpenAiServer = {
  /** e.g. http://127.0.0.1:41234/v1, for OPENAI_BASE_URL. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues replies for requests with this json_schema name, answered in order. */
  enqueue(schemaName: string, ...replies: ScriptedReply[]): void;
  /** The reply whenever this name's queue is empty (e.g. "500 until exhausted"). */
  setDefault(schemaName: string, reply: ScriptedReply): void;
  /** How streamed replies are cut and paced from now on (e.g. `{ tokenDelayMs: 20 }`, a model writing over time). */
  setStreaming(pacing: StreamPacing): void;
  /** Clears queues, defaults and recorded requests, and restores the streaming pacing the server started with. */
  reset(): void;
  close(): Promise<void>;
};

export const FAKE_EMBEDDING_DIM = 8;

/** A deterministic unit vector per text: the same text always gets the same vector. */
export function fakeEmbedding(text: string, dim = FAKE_EMBEDDING_DIM): number[] {
  const digest = createHash('sha256').update(text).digest();
  const raw = Array.from({ length: dim }, (_, i) => (digest[i % digest.length] as number) - 127.5);
  const norm = Math.hypot(...raw) || 1;
  return raw.map((value) => value / norm);
}

export async function startFakeOpenAiServer(options: { apiKey: string; streaming?: StreamPacing }): Promise<FakeOpenAiServer> {
  let pacing: StreamPacing = options.streaming ?? {};
  const queues = new Map<string, ScriptedReply[]>();
  const defaults = new Map<string, ScriptedReply>();
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let served = 0;

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return; // the client gave up (timeout) while we were "thinking"
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_fake_${served}`, ...headers });
    res.end(JSON.stringify(body));
  };
  const errorBody = (message: string, type: string, code: string | null = null) => ({ error: { message, type, param: null, code } });

  const reply = (res: http.ServerResponse, body: Record<string, unknown>, scripted: ScriptedReply): void => {
    const model = String(body.model);
    if ('delayMs' in scripted) {
      const timer = setTimeout(() => (timers.delete(timer), reply(res, body, scripted.then)), scripted.delayMs);
      timers.add(timer);
      return;
    }
    if ('status' in scripted) {
      const type = scripted.status === 429 ? 'rate_limit_exceeded' : scripted.status >= 500 ? 'server_error' : 'invalid_request_error';
      send(res, scripted.status, errorBody(scripted.message ?? `scripted ${scripted.status}`, type), scripted.headers);
      return;
    }
    const content = 'json' in scripted ? JSON.stringify(scripted.json) : 'content' in scripted ? scripted.content : null;
    const finishReason = 'content' in scripted ? (scripted.finishReason ?? 'stop') : 'stop';
    if (body.stream === true) {
      if (res.destroyed) return;
      const forced = (body.tool_choice as { function?: { name?: string } } | undefined)?.function?.name;
      const refusal = 'refusal' in scripted ? scripted.refusal : null;
      const toolCall = forced !== undefined && refusal === null ? [{ id: `call_fake_${served}`, function: { name: forced, arguments: content ?? '' } }] : undefined;
      const message = { content: toolCall ? null : content, refusal, tool_calls: toolCall };
      const finish = toolCall && finishReason === 'stop' ? 'tool_calls' : finishReason;
      const headers = { 'x-request-id': `req_fake_${served}` };
      streamCompletion(res, { id: `chatcmpl-fake-${served}`, model, created: 1_700_000_000, message, finishReason: finish, request: body, headers, pacing, timers });
      return;
    }
    send(res, 200, {
      id: `chatcmpl-fake-${served}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: 'refusal' in scripted ? scripted.refusal : null },
          finish_reason: finishReason,
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    });
  };

  const chat = (res: http.ServerResponse, body: Record<string, unknown>, schemaName: string | undefined) => {
    const queued = schemaName === undefined ? undefined : queues.get(schemaName)?.shift();
    const scripted = queued ?? (schemaName === undefined ? undefined : defaults.get(schemaName));
    if (scripted === undefined) {
      send(res, 400, errorBody(`no scripted reply for json_schema ${String(schemaName)}`, 'invalid_request_error'));
      return;
    }
    reply(res, body, scripted);
  };

  const embeddings = (res: http.ServerResponse, body: Record<string, unknown>) => {
    const inputs = Array.isArray(body.input) ? body.input.map(String) : [String(body.input)];
    const dim = typeof body.dimensions === 'number' ? body.dimensions : FAKE_EMBEDDING_DIM;
    const encode = (vector: number[]) =>
      body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    send(res, 200, {
      object: 'list',
      data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: encode(fakeEmbedding(text, dim)) })),
      model: body.model,
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      served += 1;
      const path = (req.url ?? '').split('?')[0] ?? '';
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        send(res, 400, errorBody('request body is not JSON', 'invalid_request_error'));
        return;
      }
      // The json_schema name, or the forced function's name on the ladder's tools rung (issue 24).
      const format = body.response_format as { json_schema?: { name?: string } } | undefined;
      const tools = body.tools as { function?: { name?: string } }[] | undefined;
      const schemaName = format?.json_schema?.name ?? tools?.[0]?.function?.name;
      requests.push({ path, authorization: req.headers.authorization, body, schemaName });
      if (req.headers.authorization !== `Bearer ${options.apiKey}`) {
        // Like the real API, the message echoes a masked key: the client must not leak even this.
        send(res, 401, errorBody('Incorrect API key provided: sk-***.', 'invalid_request_error', 'invalid_api_key'));
      } else if (req.method === 'POST' && path === '/v1/chat/completions') {
        chat(res, body, schemaName);
      } else if (req.method === 'POST' && path === '/v1/embeddings') {
        embeddings(res, body);
      } else {
        send(res, 404, errorBody(`unknown route ${req.method} ${path}`, 'invalid_request_error'));
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
    requests,
    enqueue: (schemaName, ...replies) => queues.set(schemaName, [...(queues.get(schemaName) ?? []), ...replies]),
    setDefault: (schemaName, scripted) => defaults.set(schemaName, scripted),
    setStreaming: (next) => {
      pacing = next;
    },
    reset: () => {
      pacing = options.streaming ?? {};
      queues.clear();
      defaults.clear();
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
