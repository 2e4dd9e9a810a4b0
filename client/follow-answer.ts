import { AnswerStreamView } from '../core/answer-stream/answer-stream-view';
import type { AnswerStreamMessage, StreamEvent } from '../core/schemas/answer-stream';
import type { RagOutcome } from '../core/schemas/run-io';
import type { RagClient } from './rag-client';

/** Reads the side channel the answer writer publishes to (the audit store's database; see activities/adapters/sql-answer-stream.ts). */
export type AnswerStreamReader = {
  eventsOf(workflowId: string, generation: string, after: { attempt: number; seq: number }): Promise<StreamEvent[]>;
};

/** Reads of what was written before the run settled, when one fails. */
const FINAL_READS = 3;

/**
 * One read of a run's answer stream into `view`: which generation the run shows (its query), then that generation's
 * new events from the side channel; the messages they make go to `emit`. Resolves false when a read failed (the
 * caller may read again: the next read resumes where this one stopped). The SSE route and followAnswer both poll this.
 */
export async function readAnswerStream(
  view: AnswerStreamView,
  rag: Pick<RagClient, 'getAnswerStream'>,
  workflowId: string,
  reader: AnswerStreamReader,
  emit: (messages: AnswerStreamMessage[]) => void,
): Promise<boolean> {
  const state = await rag.getAnswerStream(workflowId).catch(() => null);
  if (state?.generation) emit(view.follow(state.generation, state.docs));
  const reading = view.reading;
  if (!reading) return state !== null;
  const events = await reader.eventsOf(workflowId, reading.generation, reading.after).catch(() => null);
  if (events) emit(view.take(events));
  return state !== null && events !== null;
}

export type FollowAnswerOptions = {
  /** How often the run and the side channel are read (ms). */
  intervalMs?: number;
};

/**
 * Follows one round of a run's answer as it is written (issue 25 §2), until `pending` (the run's next outcome:
 * completed, failed or waiting) settles, handing each message to `onMessage`: `sources`, then `delta`s (and a
 * `discard` whenever what was shown is void), then — when the round ends with an answer — `final` with the run's own
 * answer, the record. Read errors are skipped (the next poll reads again; the final message repairs any gap).
 *
 * const outcome = await followAnswer(rag.ask(q, { sessionId, workflowId }), rag, workflowId, reader, print);
 */
export async function followAnswer(
  pending: Promise<RagOutcome>,
  rag: Pick<RagClient, 'getAnswerStream'>,
  workflowId: string,
  reader: AnswerStreamReader,
  onMessage: (message: AnswerStreamMessage) => void,
  { intervalMs = 100 }: FollowAnswerOptions = {},
): Promise<RagOutcome> {
  const view = new AnswerStreamView();
  const emit = (messages: AnswerStreamMessage[]) => messages.forEach((message) => onMessage(message));
  const poll = () => readAnswerStream(view, rag, workflowId, reader, emit);
  let settled = false;
  let wake: () => void = () => undefined;
  const loop = (async () => {
    while (!settled) {
      await poll();
      if (!settled) await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  try {
    const outcome = await pending;
    settled = true;
    // The record is here: no waiting out the poll interval before the last read and `final`.
    wake();
    await loop;
    // What the writer published before the run settled (read again if a read fails: a busy store, a query timeout),
    // then the record.
    for (let tries = 1; !(await poll()) && tries < FINAL_READS; tries += 1) await new Promise((resolve) => setTimeout(resolve, intervalMs));
    emit(view.finish(outcome.status === 'completed' ? outcome.answer : null, outcome.docs));
    return outcome;
  } finally {
    settled = true;
  }
}
