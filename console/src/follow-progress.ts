import { createParser } from 'eventsource-parser';
import type { AnswerStreamMessage, Api, RagOutcome, RagStep } from './api';
import { ApiCallError } from './api';

export type ProgressHandlers = {
  onStep: (step: RagStep, id: number) => void;
  onOutcome: (outcome: RagOutcome) => void;
  /** The answer as it is written (issue 25 §2); a server without the side channel sends none. */
  onAnswer?: (message: AnswerStreamMessage) => void;
};

/**
 * Reads GET /api/runs/{id}/progress (server-sent events) until its `outcome` event: `step` events, and `answer`
 * events (sources, deltas, discards, the final answer) before the outcome when the server streams answers. Through
 * fetch, not EventSource: EventSource cannot send the Authorization header, and the token must not travel in a URL.
 * Resolves when the stream ends; an `error` event or a non-2xx answer rejects with the API's message.
 */
export async function followProgress(api: Api, workflowId: string, handlers: ProgressHandlers, signal: AbortSignal): Promise<void> {
  const response = await fetch(`/api/runs/${encodeURIComponent(workflowId)}/progress`, { headers: api.headers({ accept: 'text/event-stream' }), signal });
  if (!response.ok || response.body === null) {
    const failure = (await response.json().catch(() => ({ error: 'HTTP_' + response.status, message: response.statusText }))) as { error: string; message: string };
    throw new ApiCallError(response.status, failure.error, failure.message);
  }
  let streamError: ApiCallError | null = null;
  const parser = createParser({
    onEvent: (event) => {
      const data: unknown = JSON.parse(event.data);
      if (event.event === 'step') handlers.onStep(data as RagStep, Number(event.id));
      else if (event.event === 'answer') handlers.onAnswer?.(data as AnswerStreamMessage);
      else if (event.event === 'outcome') handlers.onOutcome(data as RagOutcome);
      else if (event.event === 'error') {
        const failure = data as { error: string; message: string };
        streamError = new ApiCallError(200, failure.error, failure.message);
      }
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  if (streamError !== null) throw streamError;
}
