/**
 * A chat completion sent as OpenAI streams it (`stream: true`), for the loopback fakes: server-sent events of
 * `chat.completion.chunk` objects, each `data: {…}` followed by a blank line, then `data: [DONE]`. The shapes are
 * openai-node's `ChatCompletionChunk` (resources/chat/completions): the first chunk carries `role: "assistant"` with
 * an empty `content` (or `content: null` and the tool call's `id`, `type`, `name` and empty `arguments`), the next
 * ones `delta.content` (or `delta.tool_calls[0].function.arguments`) fragments, the last one an empty delta and the
 * `finish_reason`; with `stream_options.include_usage` every chunk has `usage: null` and one more chunk with
 * `choices: []` carries the usage. A refusal streams as `delta.refusal`; DeepSeek's reasoning as
 * `delta.reasoning_content` before the content.
 */
import type * as http from 'node:http';

export type StreamPacing = {
  /** Pieces the reply text is cut into (default: one per 4 characters, about a token each). */
  chunks?: number;
  /** Wait between two chunks, ms (default 0: all at once). */
  tokenDelayMs?: number;
};

export type StreamedMessage = {
  content: string | null;
  refusal?: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  reasoning_content?: string;
};

export type StreamedCompletion = {
  id: string;
  model: string;
  created: number;
  message: StreamedMessage;
  finishReason: string;
  /** The request's body: `stream_options.include_usage` adds the usage chunk. */
  request: Record<string, unknown>;
  headers?: Record<string, string>;
  pacing?: StreamPacing;
  /** Keeps the timers so the fake can clear them on close. */
  timers?: Set<NodeJS.Timeout>;
};

const USAGE = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };

/** Cuts text into `count` pieces of about equal length, never inside a surrogate pair (the wire is UTF-8). */
export function cutText(text: string, count?: number): string[] {
  const characters = Array.from(text);
  const pieces = Math.max(1, Math.min(characters.length, count ?? Math.ceil(characters.length / 4)));
  const size = characters.length / pieces;
  return Array.from({ length: pieces }, (_, i) => characters.slice(Math.round(i * size), Math.round((i + 1) * size)).join('')).filter((piece) => piece !== '');
}

export function streamCompletion(res: http.ServerResponse, completion: StreamedCompletion): void {
  const { message, pacing = {} } = completion;
  const includeUsage = (completion.request.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const call = message.tool_calls?.[0];
  const first = call
    ? { role: 'assistant', content: null, tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }], refusal: null }
    : { role: 'assistant', content: message.refusal ? null : '', refusal: null };
  const events: unknown[] = [chunk(first)];
  for (const piece of cutText(message.reasoning_content ?? '', pacing.chunks)) events.push(chunk({ reasoning_content: piece }));
  if (call) for (const piece of cutText(call.function.arguments, pacing.chunks)) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  else if (message.refusal) for (const piece of cutText(message.refusal, pacing.chunks)) events.push(chunk({ refusal: piece }));
  else for (const piece of cutText(message.content ?? '', pacing.chunks)) events.push(chunk({ content: piece }));
  events.push(chunk({}, completion.finishReason));
  if (includeUsage) events.push({ id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model, system_fingerprint: 'fp_fake', choices: [], usage: USAGE });
  const lines = [...events.map((event) => `data: ${JSON.stringify(event)}\n\n`), 'data: [DONE]\n\n'];

  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...completion.headers });
  const delay = pacing.tokenDelayMs ?? 0;
  if (delay <= 0) {
    res.end(lines.join(''));
    return;
  }
  let next = 0;
  const write = () => {
    if (res.destroyed) return; // the client gave up
    res.write(lines[next]);
    next += 1;
    if (next === lines.length) {
      res.end();
      return;
    }
    const timer = setTimeout(() => (completion.timers?.delete(timer), write()), delay);
    completion.timers?.add(timer);
  };
  write();
}
