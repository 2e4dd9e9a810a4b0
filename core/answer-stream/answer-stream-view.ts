import type { RagAnswer } from '../schemas/answer';
import type { AnswerStreamMessage, StreamEvent, StreamSource } from '../schemas/answer-stream';
import type { Chunk } from '../schemas/retrieved-chunk';

/*
 * What a listener of a streaming answer is shown (issue 25 §2), folded from the side channel's events and the run's
 * own state. Pure: the caller polls and feeds it.
 * - Only the generation the run has taken is shown: a speculative draft the run drops is never seen, one it takes is
 *   shown from its first word.
 * - A later attempt of that generation, a restart inside an attempt (a re-ask, a rung change), or another generation
 *   (the repair) is a discard of what was shown, then the new text.
 * - The end is the run's result: `final` carries the record's text, and says when it differs from what was streamed.
 */

const PREVIEW_CHARS = 80;

/** The evidence as [n] sources, in the order the writer was given it (document n of the prompt is docs[n - 1]). */
export function sourcesOf(docs: readonly Chunk[]): StreamSource[] {
  return docs.map((doc, index) => {
    const flat = (doc.text ?? '').replace(/\s+/g, ' ').trim();
    return {
      n: index + 1,
      filename: doc.filename ?? null,
      page_number: typeof doc.page_number === 'number' ? doc.page_number : null,
      preview: [...flat].length > PREVIEW_CHARS ? `${[...flat].slice(0, PREVIEW_CHARS - 1).join('')}…` : flat,
    };
  });
}

export class AnswerStreamView {
  private generation: string | null = null;
  private attempt = 0;
  private text = '';
  private sourcesSent = false;
  private finished = false;
  /** Where reading resumes: events of the current generation after this (attempt, seq). */
  private cursor = { attempt: 0, seq: -1 };

  /** The generation being shown (null before the run starts writing), for the caller's next read. */
  get reading(): { generation: string; after: { attempt: number; seq: number } } | null {
    return this.generation === null ? null : { generation: this.generation, after: { ...this.cursor } };
  }

  get done(): boolean {
    return this.finished;
  }

  /** The run now writes (or has taken) `generation` from `docs`: sources first, a discard if another one was shown. */
  follow(generation: string, docs: readonly Chunk[]): AnswerStreamMessage[] {
    if (this.finished || generation === this.generation) return [];
    const messages: AnswerStreamMessage[] = [];
    if (!this.sourcesSent) {
      messages.push({ type: 'sources', sources: sourcesOf(docs) });
      this.sourcesSent = true;
    }
    if (this.text !== '') messages.push({ type: 'discard', reason: 'the run writes the answer again (a repair)' });
    this.generation = generation;
    this.attempt = 0;
    this.text = '';
    this.cursor = { attempt: 0, seq: -1 };
    return messages;
  }

  /** New events of the generation being shown, in (attempt, seq) order; others are ignored. */
  take(events: readonly StreamEvent[]): AnswerStreamMessage[] {
    const messages: AnswerStreamMessage[] = [];
    for (const event of events) {
      if (this.finished || event.generation !== this.generation) continue;
      if (event.attempt < this.cursor.attempt || (event.attempt === this.cursor.attempt && event.seq <= this.cursor.seq)) continue;
      this.cursor = { attempt: event.attempt, seq: event.seq };
      if (event.attempt > this.attempt) {
        if (this.text !== '') messages.push({ type: 'discard', reason: `attempt ${event.attempt} replaces attempt ${this.attempt}` });
        this.attempt = event.attempt;
        this.text = '';
      }
      if (event.kind === 'restart') {
        if (this.text !== '') messages.push({ type: 'discard', reason: event.text || 'the writer was asked again' });
        this.text = '';
      } else if (event.kind === 'delta' && event.text !== '') {
        this.text += event.text;
        messages.push({ type: 'delta', text: event.text });
      }
    }
    return messages;
  }

  /**
   * `take` for events a push carried, when they continue where reading stands (the attempt's next seq, or a later
   * attempt's first); null when they do not: events were missed, and the store is read instead.
   */
  takeContinuing(events: readonly StreamEvent[]): AnswerStreamMessage[] | null {
    const ordered = events.filter((event) => event.generation === this.generation).sort((a, b) => a.attempt - b.attempt || a.seq - b.seq);
    let at = this.cursor;
    for (const event of ordered) {
      const seen = event.attempt < at.attempt || (event.attempt === at.attempt && event.seq <= at.seq);
      if (seen) continue;
      const next = (event.attempt === at.attempt && event.seq === at.seq + 1) || (event.attempt > at.attempt && event.seq === 0);
      if (!next) return null;
      at = { attempt: event.attempt, seq: event.seq };
    }
    return this.take(ordered);
  }

  /** The run settled: its answer (null when it has none) ends the stream, once. */
  finish(answer: RagAnswer | null, docs: readonly Chunk[]): AnswerStreamMessage[] {
    if (this.finished) return [];
    this.finished = true;
    if (answer === null) return this.text === '' ? [] : [{ type: 'discard', reason: 'the run ended without an answer' }];
    const messages: AnswerStreamMessage[] = this.sourcesSent ? [] : [{ type: 'sources', sources: sourcesOf(docs) }];
    messages.push({ type: 'final', text: answer.text, citations: answer.citations, verification: answer.verification.status, replaced: this.text !== answer.text });
    return messages;
  }
}
