/**
 * OpenAI-compatible providers as they behave, on loopback (issue 24 §2): each profile refuses what that provider
 * refuses with its status, body bytes and headers (docs/PROVIDERS.md gives the source of each), and shapes its replies
 * as it does (a tool call, a fenced reply, a blank json_object reply). Behind every profile sits one deterministic
 * "model" reading the prompt, so a run through any provider gets the same replies as through a json_schema one:
 * complexity simple; a question's first grade routes to rewrite and later ones to answer; the rewrite is a step-back
 * question; the answer cites the first sentence of the first snippet verbatim. A request with `stream: true` gets the
 * same message as server-sent chunks (test/support/openai-stream.ts); a refusal is a plain error body either way.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamCompletion } from './openai-stream';

type Body = Record<string, unknown>;
type Refusal = { status: number; body: string; headers?: Record<string, string> };
/** What a request asked for: its rung (as the provider sees it) and whether it sent a temperature. */
type Asked = { mode: 'json_schema' | 'tools' | 'json_object' | 'prompt'; temperature: unknown; schemaText: string };

export type ProviderProfile = {
  name: string;
  /** The model name a user of this provider would set. */
  model: string;
  refuse(body: Body, asked: Asked): Refusal | null;
  /** The assistant message for a reply (default: content = the JSON, or a tool call on the tools rung). */
  shape?(json: string, asked: Asked, nth: number): { content: string | null; tool_calls?: unknown[]; reasoning_content?: string };
  /** Extra response headers of successful replies (e.g. no x-request-id). */
  headers?: Record<string, string>;
};

const json = (value: unknown) => JSON.stringify(value);

/** OpenAI's own error object. */
const openAiError = (message: string, param: string | null, code: string | null) => json({ error: { message, type: 'invalid_request_error', param, code } });

export const PROFILES: Record<string, ProviderProfile> = {
  /** The reference: accepts every parameter, as gpt-4o-mini does. */
  openai: { name: 'openai', model: 'gpt-4o-mini', refuse: () => null },
  /** A reasoning model (gpt-5-mini is known: no temperature is sent, so nothing is refused). */
  'openai-reasoning': {
    name: 'openai-reasoning',
    model: 'gpt-5-mini',
    refuse: (_body, asked) =>
      asked.temperature !== undefined && asked.temperature !== 1
        ? { status: 400, body: openAiError(`Unsupported value: 'temperature' does not support ${String(asked.temperature)} with this model. Only the default (1) value is supported.`, 'temperature', 'unsupported_value') }
        : null,
  },
  /** An Azure deployment of a reasoning model: its name hides the model, so the 400 comes and temperature is dropped. */
  'azure-reasoning-deployment': {
    name: 'azure-reasoning-deployment',
    model: 'prod-reasoner',
    refuse: (_body, asked) =>
      asked.temperature !== undefined
        ? { status: 400, body: openAiError("Unsupported parameter: 'temperature' is not supported with this model.", 'temperature', null) }
        : null,
  },
  /** DeepSeek V3 (deepseek-chat): json_schema refused with its 143-byte body and no x-request-id; tools accepted. */
  deepseek: {
    name: 'deepseek',
    model: 'deepseek-chat',
    headers: { 'x-ds-trace-id': 'fake-trace' },
    refuse: (_body, asked) =>
      asked.mode === 'json_schema'
        ? { status: 400, body: '{"error":{"message":"This response_format type is unavailable now","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}', headers: { 'x-ds-trace-id': 'fake-trace' } }
        : null,
  },
  /** DeepSeek in thinking mode: json_schema refused, a forced tool_choice refused, json_object's first reply blank. */
  'deepseek-thinking': {
    name: 'deepseek-thinking',
    model: 'deepseek-reasoner',
    headers: { 'x-ds-trace-id': 'fake-trace' },
    refuse: (_body, asked) => {
      if (asked.mode === 'json_schema') return { status: 400, body: '{"error":{"message":"This response_format type is unavailable now","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}' };
      if (asked.mode === 'tools') return { status: 400, body: '{"error":{"message":"Thinking mode does not support this tool_choice","type":"invalid_request_error"}}' };
      return null;
    },
    // "the returned content may contain only spaces (appearing empty, even when finish_reason is stop)"
    shape: (reply, _asked, nth) => ({ content: nth === 1 ? '   ' : reply, reasoning_content: '先分析问题。' }),
  },
  /** Zhipu GLM: json_schema refused with its generic 1210 body that names no parameter; json_object accepted. */
  glm: {
    name: 'glm',
    model: 'glm-4-plus',
    refuse: (_body, asked) =>
      asked.mode === 'json_schema' || asked.mode === 'tools'
        ? { status: 400, body: json({ error: { code: '1210', message: 'API 调用参数有误，请检查文档。' } }) }
        : null,
  },
  /** vLLM 0.4 (pydantic, extra forbidden): json_schema refused as a literal_error, tools as extra inputs; flat body. */
  'vllm-old': {
    name: 'vllm-old',
    model: 'Qwen2-7B-Instruct',
    refuse: (_body, asked) => {
      const flat = (message: string) => ({ status: 400, body: json({ object: 'error', message, type: 'BadRequestError', param: null, code: 400 }) });
      if (asked.mode === 'json_schema') {
        return flat(`[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'", 'input': 'json_schema', 'ctx': {'expected': "'text' or 'json_object'"}}]`);
      }
      if (asked.mode === 'tools') return flat(`[{'type': 'extra_forbidden', 'loc': ('body', 'tools'), 'msg': 'Extra inputs are not permitted', 'input': []}]`);
      return null;
    },
  },
  /** LM Studio: json_schema accepted; json_object and a named tool_choice refused with a bare-string error. */
  lmstudio: {
    name: 'lmstudio',
    model: 'qwen2.5-7b-instruct',
    refuse: (_body, asked) => {
      if (asked.mode === 'json_object') return { status: 400, body: json({ error: "'response_format.type' must be 'json_schema' or 'text'" }) };
      if (asked.mode === 'tools') return { status: 400, body: json({ error: "Invalid tool_choice type: 'object'. Supported string values: none, auto, required" }) };
      return null;
    },
  },
  /** Qwen in thinking mode (DashScope): json_schema, a forced tool_choice and json_object refused; a fenced reply. */
  'qwen-thinking': {
    name: 'qwen-thinking',
    model: 'qwen3-235b-a22b',
    refuse: (_body, asked) => {
      const dashScope = (message: string) => ({
        status: 400,
        body: json({ error: { message: `<400> InternalError.Algo.InvalidParameter: ${message}`, type: 'invalid_request_error', param: null, code: 'invalid_parameter_error' }, id: 'chatcmpl-fake', request_id: 'fake-request' }),
      });
      if (asked.mode === 'json_schema') return dashScope('The response_format type "json_schema" is not supported in thinking mode');
      if (asked.mode === 'tools') return dashScope('The tool_choice parameter does not support being set to required or object in thinking mode');
      if (asked.mode === 'json_object') return dashScope('Json mode response is not supported when enable_thinking is true');
      return null;
    },
    shape: (reply) => ({ content: `好的，以下是结果：\n\`\`\`json\n${reply}\n\`\`\`` }),
  },
  /** Gemini's compatibility layer: "$schema" and "additionalProperties" refused inside schemas, as a JSON array body. */
  gemini: {
    name: 'gemini',
    model: 'gemini-2.0-flash',
    refuse: (_body, asked) => {
      const unknown = ['$schema', 'additionalProperties'].find((keyword) => asked.schemaText.includes(`"${keyword}"`));
      if (unknown === undefined || (asked.mode !== 'json_schema' && asked.mode !== 'tools')) return null;
      const at = asked.mode === 'json_schema' ? 'generation_config.response_schema' : 'tools[0].function_declarations[0].parameters';
      const message = `Invalid JSON payload received. Unknown name "${unknown}" at '${at}': Cannot find field.`;
      return { status: 400, body: json([{ error: { code: 400, message, status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: at, description: message }] }] } }]) };
    },
  },
};

/** The rung a request asks on, as a provider sees it. */
function askedOf(body: Body): Asked {
  const format = body.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  const tools = body.tools as { function?: { parameters?: unknown } }[] | undefined;
  const mode = tools?.length ? 'tools' : format?.type === 'json_schema' ? 'json_schema' : format?.type === 'json_object' ? 'json_object' : 'prompt';
  const schema = mode === 'tools' ? tools?.[0]?.function?.parameters : format?.json_schema?.schema;
  return { mode, temperature: body.temperature, schemaText: schema === undefined ? '' : JSON.stringify(schema) };
}

/** The schema a request asks for: the json_schema name, the function name, or the name the prompt gives. */
function schemaNameOf(body: Body, firstMessage: string): string {
  const format = body.response_format as { json_schema?: { name?: string } } | undefined;
  const tools = body.tools as { function?: { name?: string } }[] | undefined;
  return format?.json_schema?.name ?? tools?.[0]?.function?.name ?? /conform to the JSON Schema "(\w+)"/.exec(firstMessage)?.[1] ?? 'unknown';
}

/** The deterministic model behind every profile. `grades` counts grades per question (first → rewrite). */
export function modelReply(schema: string, prompt: string, grades: Map<string, number>): unknown {
  const question = /(?:用户问题|Question)：?:?\s*(.+)/.exec(prompt)?.[1]?.trim() ?? '';
  if (schema === 'doctor_probe') return { ok: true };
  if (schema === 'complexity_result') return { complexity: 'simple', reason: '单一信息点查询', sub_questions: [] };
  if (schema === 'rewrite_plan') return { method: 'step_back', step_back_question: `${question} 相关的规格说明`, hyde_document: '' };
  if (schema === 'evidence_grade') {
    const n = (grades.get(question) ?? 0) + 1;
    grades.set(question, n);
    const route = n === 1 ? 'rewrite' : 'answer';
    return { relevance: 'strong', answerability: n === 1 ? 'partial' : 'sufficient', ambiguity: 'none', route, confidence: n === 1 ? 0.5 : 0.9, missing_slots: [], hitl_prompt: '', hitl_options: [], reason: `grade ${n}` };
  }
  if (schema === 'answer_draft') {
    const snippet = /\n\[1\] [^\n]*\(Page [^)\n]*\):\n([^\n]+)/.exec(prompt)?.[1] ?? '';
    const quote = (/^[^。！？.!?]+/.exec(snippet)?.[0] ?? snippet).trim().slice(0, 40).trim();
    return { answer: `${quote}[1]。`, citations: [{ marker: 1, doc_index: 1, quote }] };
  }
  return {};
}

export type ProviderFake = {
  /** e.g. http://127.0.0.1:41234/deepseek/v1: one server, a path prefix per profile. */
  baseUrlOf(profile: string): string;
  /** Requests by profile, in order, with what each was answered. */
  log: { profile: string; body: Body; status: number }[];
  /** Forgets the grades counted so far (each scenario starts as a fresh model). */
  resetModel(profile?: string): void;
  close(): Promise<void>;
};

export async function startProviderFake(apiKey: string): Promise<ProviderFake> {
  const grades = new Map<string, Map<string, number>>();
  const seen = new Map<string, number>();
  const replies = new Map<string, string>();
  const log: ProviderFake['log'] = [];
  let served = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      served += 1;
      const [, name = '', ...rest] = (req.url ?? '').split('?')[0]?.split('/') ?? [];
      const profile = PROFILES[name];
      const send = (status: number, body: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body);
      };
      if (profile === undefined || `/${rest.join('/')}` !== '/v1/chat/completions') return send(404, openAiError(`unknown route ${req.url}`, null, null));
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, openAiError('Incorrect API key provided: sk-***.', null, 'invalid_api_key'));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
      const asked = askedOf(body);
      const refusal = profile.refuse(body, asked);
      if (refusal) {
        log.push({ profile: name, body, status: refusal.status });
        return send(refusal.status, refusal.body, refusal.headers);
      }
      log.push({ profile: name, body, status: 200 });
      const messages = body.messages as { role: string; content: string }[];
      const first = messages[0]?.content ?? '';
      const schema = schemaNameOf(body, first);
      const counts = grades.get(name) ?? new Map<string, number>();
      grades.set(name, counts);
      // A re-ask (a second user turn) gets the reply the first turn was given, without counting a new grade.
      const key = `${name}\u0000${schema}\u0000${first}`;
      const isReask = messages.length > 1;
      const reply = isReask ? (replies.get(key) ?? json({})) : json(modelReply(schema, first, counts));
      replies.set(key, reply);
      const nth = isReask ? 2 : (seen.set(key, (seen.get(key) ?? 0) + 1), seen.get(key) ?? 1);
      const message =
        profile.shape?.(reply, asked, nth) ??
        (asked.mode === 'tools' ? { content: null, tool_calls: [{ id: `call_${served}`, type: 'function', function: { name: schema, arguments: reply } }] } : { content: reply });
      const finishReason = asked.mode === 'tools' ? 'tool_calls' : 'stop';
      if (body.stream === true) {
        const calls = message.tool_calls as { id: string; function: { name: string; arguments: string } }[] | undefined;
        return streamCompletion(res, {
          id: `chatcmpl-${name}-${served}`,
          model: String(body.model),
          created: 1_700_000_000,
          message: { content: message.content, tool_calls: calls, reasoning_content: message.reasoning_content },
          finishReason,
          request: body,
          headers: profile.headers ?? { 'x-request-id': `req_${served}` },
        });
      }
      send(
        200,
        json({
          id: `chatcmpl-${name}-${served}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: String(body.model),
          choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finishReason, logprobs: null }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
        profile.headers ?? { 'x-request-id': `req_${served}` },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrlOf: (profile) => `http://127.0.0.1:${port}/${profile}/v1`,
    log,
    resetModel: (profile) => (profile === undefined ? grades.clear() : grades.delete(profile), seen.clear(), replies.clear()),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
