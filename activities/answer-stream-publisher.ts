import type { AnswerTextEvent } from '../core/model-output/answer-text-event';
import type { StreamEvent } from '../core/schemas/answer-stream';
import type { AnswerStreamStore } from './adapters/sql-answer-stream';

/*
 * The answer writer's side of streaming (issue 25 §2): the first text at once, then text events batched every FLUSH_MS
 * and appended in order, so
 * a listener polling the store sees the answer grow without a write per token. Best effort by design: a failed write
 * is dropped (the run's result is the record and ends every stream), and nothing here can fail the answer.
 */

export const FLUSH_MS = 20;

export type AnswerStreamPublisher = {
  onText(event: AnswerTextEvent): void;
  /** Flushes what is pending and writes the end; resolves when written (or given up). */
  end(): Promise<void>;
};

export function answerStreamPublisher(
  store: AnswerStreamStore,
  where: { workflowId: string; generation: string; attempt: number },
  now: () => string = () => new Date().toISOString(),
): AnswerStreamPublisher {
  let seq = 0;
  let pending: StreamEvent[] = [];
  let writes: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const event = (kind: StreamEvent['kind'], text: string): StreamEvent => ({ generation: where.generation, attempt: where.attempt, seq: seq++, kind, text });

  const flush = () => {
    timer = undefined;
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    writes = writes.then(() => store.append(where.workflowId, batch, now()).catch(() => undefined));
  };
  let flushed = false;
  const schedule = () => {
    // The first text goes out at once (what a listener waits for most); later ones in batches.
    if (!flushed) {
      flushed = true;
      flush();
      return;
    }
    timer ??= setTimeout(flush, FLUSH_MS);
  };
  // A retried attempt first says that whatever an earlier attempt showed is void.
  if (where.attempt > 1) pending.push(event('restart', `attempt ${where.attempt}`));

  return {
    onText(text) {
      pending.push(text.kind === 'delta' ? event('delta', text.text) : event('restart', text.reason));
      schedule();
    },
    async end() {
      clearTimeout(timer);
      pending.push(event('end', ''));
      flush();
      await writes;
    },
  };
}
