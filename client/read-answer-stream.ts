import type { AnswerStreamView } from '../core/answer-stream/answer-stream-view';
import type { AnswerStreamMessage, StreamEvent } from '../core/schemas/answer-stream';
import type { RagClient } from './rag-client';

/** Reads the side channel the answer writer publishes to (the audit store's database; see activities/adapters/sql-answer-stream.ts). */
export type AnswerStreamReader = {
  eventsOf(workflowId: string, generation: string, after: { attempt: number; seq: number }): Promise<StreamEvent[]>;
  /**
   * A push when events of the run are written (PostgreSQL's NOTIFY, issue 36 §3), with the events when the
   * notification could carry them; without it, readers poll.
   */
  onAppend?(workflowId: string, listener: (generation: string, events?: StreamEvent[]) => void): () => void;
};

/** What the pushes since the last read said (client/follow-run.ts and the SSE route collect them). */
export type PushedSinceRead = {
  /** The generation the last push named. */
  written?: string;
  /** The events the pushes carried, in arrival order; null when one came without them (read the store). */
  events?: StreamEvent[] | null;
  /**
   * No push since the last read, and none missed: the run is not asked (issue 36 §2). True for a pushing side
   * channel's first read (nothing is written before the first push wakes the reader) and its last (the outcome's
   * record follows); the fallback poll asks, in case a push of a new generation was lost.
   */
  trustPushes?: boolean;
  /**
   * The run's history has not grown since the read that last asked it (client/run-mark.ts, issue 47 §3): it shows the
   * same generation, so it is not asked, whatever the pushes said.
   */
  runUnchanged?: boolean;
};

/** Collects pushes between reads: call `push` from onAppend, `take` at each read; `written`: a push waits (its generation). */
export function pushCollector(): { push(generation: string, events?: StreamEvent[]): void; take(): PushedSinceRead; readonly written: string | undefined } {
  let written: string | undefined;
  let events: StreamEvent[] | null = [];
  return {
    push(generation, pushed) {
      if (written !== undefined && written !== generation) events = null;
      written = generation;
      events = events && pushed ? [...events, ...pushed] : null;
    },
    take() {
      const taken = { written, events: written === undefined ? undefined : events };
      written = undefined;
      events = [];
      return taken;
    },
    get written() {
      return written;
    },
  };
}

/** Whether a read with these pushes knows the generation the run shows without asking it (issue 36 §2). */
export function knowsGeneration(
  view: Pick<AnswerStreamView, 'reading'>,
  reader: AnswerStreamReader,
  { written, trustPushes = false, runUnchanged = false }: Omit<PushedSinceRead, 'events'>,
): boolean {
  return runUnchanged || (written !== undefined ? view.reading?.generation === written : trustPushes && reader.onAppend !== undefined);
}

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
  /**
   * What was pushed since the last read: a push of the generation already shown needs no question to the run, and
   * when it carried its events, no read of the store either.
   */
  { written, events: pushed, trustPushes = false, runUnchanged = false }: PushedSinceRead = {},
): Promise<boolean> {
  const known = knowsGeneration(view, reader, { written, trustPushes, runUnchanged });
  if (known && written !== undefined && pushed) {
    const messages = view.takeContinuing(pushed);
    if (messages) {
      emit(messages);
      return true;
    }
  }
  const state = known ? null : await rag.getAnswerStream(workflowId).catch(() => null);
  if (state?.generation) emit(view.follow(state.generation, state.docs));
  const reading = view.reading;
  if (!reading) return state !== null;
  const events = await reader.eventsOf(workflowId, reading.generation, reading.after).catch(() => null);
  if (events) emit(view.take(events));
  return (known || state !== null) && events !== null;
}
