import Fastify from 'fastify';
import type { ChatHistoryItem, LlamaGrammar, Token } from 'node-llama-cpp';
import { LOCAL_MODEL } from '../../core/local-model';
import { ChatCompletionRequest, grammarSchema, outputSchemaOf, textOf } from './chat-request';
import { chatPromptTokens, prefillPrompt } from './prompt-prefill';
import { generateWithLogprobs } from './token-probabilities';

/*
 * The local model service (issue 34 §1, docs/design/local-model.md): a GGUF model run on the CPU by node-llama-cpp
 * (llama.cpp's prebuilt binaries, no compiler), served on loopback as OpenAI's chat-completions API — what ragtime's
 * OpenAI adapter already speaks — with streaming, and structured output enforced by a grammar built from the
 * request's JSON schema, and token log-probabilities (issue 43 §1). One request at a time: the machine's cores are the model's, a second request waits its
 * turn rather than halving the speed of both.
 */

export type LocalLlmOptions = {
  modelPath: string;
  /** The id the server answers to, and lists on /v1/models. */
  modelName: string;
  host: string;
  port: number;
  threads: number;
  contextSize: number;
  log?: (line: string) => void;
};

export type LocalLlmServer = { url: string; close(): Promise<void> };

type OpenAiError = { error: { message: string; type: 'invalid_request_error' | 'server_error'; param: string | null } };
const invalid = (message: string, param: string | null = null): OpenAiError => ({ error: { message, type: 'invalid_request_error', param } });

/** The request's messages as node-llama-cpp's chat history; the last must be the user's (the turn to answer). */
function historyOf(request: ChatCompletionRequest): ChatHistoryItem[] | string {
  const history: ChatHistoryItem[] = request.messages.map((message) =>
    message.role === 'assistant' ? { type: 'model', response: [textOf(message)] } : message.role === 'user' ? { type: 'user', text: textOf(message) } : { type: 'system', text: textOf(message) },
  );
  if (history.at(-1)?.type !== 'user') return 'the last message must be the user\'s';
  // LlamaChat answers after the history: an empty model turn is where the answer goes.
  return [...history, { type: 'model', response: [] }];
}

export async function startLocalLlmServer(options: LocalLlmOptions): Promise<LocalLlmServer> {
  const log = options.log ?? (() => undefined);
  // ESM-only package: loaded on demand, so that commands that never serve a model do not pay for it.
  const { getLlama, LlamaChat } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
  const started = performance.now();
  const model = await llama.loadModel({ modelPath: options.modelPath });
  const context = await model.createContext({ contextSize: options.contextSize, threads: options.threads, sequences: 1 });
  const sequence = context.getSequence();
  const chat = new LlamaChat({ contextSequence: sequence });
  log(`model ${options.modelName} loaded from ${options.modelPath} in ${Math.round(performance.now() - started)} ms (${options.threads} threads, context ${options.contextSize})`);

  let tail: Promise<unknown> = Promise.resolve();
  // Requests generating or waiting their turn, shown by /healthz: how a test sees a closed request stop (issue 43 §3).
  let inFlight = 0;
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    inFlight += 1;
    const run = tail.then(work, work).finally(() => (inFlight -= 1));
    tail = run.catch(() => undefined);
    return run;
  };
  const grammars = new Map<string, Promise<LlamaGrammar>>();
  const grammarFor = (schema: Record<string, unknown>): Promise<LlamaGrammar> => {
    const key = JSON.stringify(schema);
    let grammar = grammars.get(key);
    if (!grammar) {
      grammar = llama.createGrammarForJsonSchema(grammarSchema(schema) as never) as Promise<LlamaGrammar>;
      grammars.set(key, grammar);
      grammar.catch(() => grammars.delete(key));
    }
    return grammar;
  };
  const tokens = (text: string) => model.tokenize(text).length;

  const app = Fastify({ logger: false, bodyLimit: 8 * 1024 * 1024 });
  app.get('/healthz', async () => ({ ok: true, model: options.modelName, requests_in_flight: inFlight }));
  app.get('/v1/models', async () => ({ object: 'list', data: [{ id: options.modelName, object: 'model', created: 0, owned_by: 'local' }] }));
  app.post('/v1/chat/completions', async (request, reply) => {
    const parsed = ChatCompletionRequest.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send(invalid(`invalid request: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`));
    const body = parsed.data;
    if (body.tools && body.tools.length > 0) return reply.code(400).send(invalid('tools are not supported by the local model server: ask with response_format json_schema', 'tools'));
    const history = historyOf(body);
    if (typeof history === 'string') return reply.code(400).send(invalid(history, 'messages'));
    const schema = outputSchemaOf(body);
    if (body.logprobs && (schema || body.stream)) return reply.code(400).send(invalid('logprobs are supported without response_format and without stream on the local model server', 'logprobs'));
    let grammar: LlamaGrammar | undefined;
    try {
      grammar = schema ? await grammarFor(schema) : undefined;
    } catch (error) {
      return reply.code(400).send(invalid(`this JSON schema cannot be enforced: ${error instanceof Error ? error.message : String(error)}`, 'response_format'));
    }
    const abort = new AbortController();
    let closedAt: number | undefined;
    // The client went away before the answer was complete (issue 43 §3): stop generating, or never start if the
    // request still waits its turn. The response's 'close' before it finished is the connection closing; the
    // request's own 'close' fires once its body is read, so it cannot tell.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) {
        closedAt = performance.now();
        abort.abort();
      }
    });
    const target = { sequence, model, chatWrapper: chat.chatWrapper };
    // In its turn: nothing if the client has gone; else the prompt read in abortable steps (prompt-prefill.ts), then the
    // work, given the prompt's tokens. Each request's one log line says where its time went: the prompt read (and how
    // much of it the KV cache already held) and the generation — what docs/PERFORMANCE.md's local-model rows are read from.
    const kind = body.logprobs ? 'logprobs' : schema ? 'json' : body.stream ? 'stream' : 'text';
    let prefill = { tokens: 0, reused: 0, ms: 0 };
    const unlessAborted = <T>(work: (prompt: Token[]) => Promise<T>) => async () => {
      const turn = performance.now();
      try {
        if (abort.signal.aborted) throw new Error('the client closed the request before its turn');
        const read = await prefillPrompt(target, chatPromptTokens(target, history), abort.signal);
        prefill = { tokens: read.tokens.length, reused: read.reused, ms: performance.now() - turn };
        return await work(read.tokens);
      } finally {
        if (closedAt !== undefined) log(`a closed request stopped ${Math.round(performance.now() - closedAt)} ms after its client went away`);
        else log(`${kind}: ${prefill.tokens} prompt tokens (${prefill.reused} already evaluated) read in ${Math.round(prefill.ms)} ms, generated in ${Math.round(performance.now() - turn - prefill.ms)} ms`);
      }
    };
    // OpenAI's usage; cached_tokens: the prompt's tokens the KV cache already held, not read again.
    const usage = (completionTokens: number) => ({
      prompt_tokens: prefill.tokens,
      completion_tokens: completionTokens,
      total_tokens: prefill.tokens + completionTokens,
      prompt_tokens_details: { cached_tokens: prefill.reused },
    });
    const id = `chatcmpl-local-${Date.now().toString(36)}`;
    const created = Math.floor(Date.now() / 1000);
    const settings = {
      ...(grammar ? { grammar } : {}),
      maxTokens: body.max_completion_tokens ?? body.max_tokens ?? LOCAL_MODEL.defaultMaxTokens,
      temperature: body.temperature ?? 0,
      signal: abort.signal,
      stopOnAbortSignal: true,
    };
    if (body.stream) {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const send = (data: unknown) => reply.raw.write(`data: ${JSON.stringify(data)}\n\n`);
      const chunk = (delta: Record<string, unknown>, finish: string | null) => ({ id, object: 'chat.completion.chunk', created, model: options.modelName, choices: [{ index: 0, delta, finish_reason: finish }] });
      try {
        send(chunk({ role: 'assistant', content: '' }, null));
        const result = await oneAtATime(unlessAborted(() => chat.generateResponse(history, { ...settings, onTextChunk: (text) => {
              if (text !== '') send(chunk({ content: text }, null));
            } })));
        send(chunk({}, result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop'));
        reply.raw.write('data: [DONE]\n\n');
      } catch (error) {
        send({ error: { message: error instanceof Error ? error.message : String(error), type: 'server_error', param: null } });
      }
      reply.raw.end();
      return reply;
    }
    if (body.logprobs) {
      const generated = await oneAtATime(unlessAborted((prompt) => generateWithLogprobs(target, { prompt, maxTokens: settings.maxTokens, topLogprobs: body.top_logprobs ?? 0, signal: abort.signal })));
      return {
        id,
        object: 'chat.completion',
        created,
        model: options.modelName,
        choices: [{ index: 0, message: { role: 'assistant', content: generated.text }, logprobs: { content: generated.content, refusal: null }, finish_reason: generated.stopReason === 'length' ? 'length' : 'stop' }],
        usage: usage(generated.content.length),
      };
    }
    const result = await oneAtATime(unlessAborted(() => chat.generateResponse(history, settings)));
    return {
      id,
      object: 'chat.completion',
      created,
      model: options.modelName,
      choices: [{ index: 0, message: { role: 'assistant', content: result.response }, finish_reason: result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop' }],
      usage: usage(tokens(result.response)),
    };
  });
  const url = await app.listen({ host: options.host, port: options.port });
  return {
    url,
    async close() {
      await app.close();
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
