import { hasContent, joinWrappedLines, splitSentences } from '../answer/sentences';
import type { Chunk } from '../schemas/retrieved-chunk';

/*
 * The sentences of the evidence that the grader reads by meaning (DESIGN §4c, issue 42 §2): each evidence chunk's
 * sentences, headings left out, each with the chunk's context (its document's title and heading path, issue 42 §1)
 * in front, so that "Extract a (compressed) archive file into the target directory" is read as tar's. Pure: the
 * activity embeds `embedText` (e5 "passage: ") beside the question (e5 "query: ") and hands back the similarities.
 */

/** At most this many chunks of the evidence are read by meaning: retrieval's first ones (spec top_k is 8). */
export const MEANING_CHUNKS = 8;
/** At most this many sentences a chunk: an 800-character leaf holds ~5–15; a merged parent more. */
export const MEANING_SENTENCES_PER_CHUNK = 16;
/** Sentences longer than this are cut before embedding (e5-small reads 512 tokens; a sentence this long is a table). */
export const MEANING_SENTENCE_CHARS = 400;

export type GradingSentence = {
  /** Index of the chunk in the evidence. */
  chunk: number;
  /** The sentence as written (what an answer would quote). */
  text: string;
  /** What is embedded: the chunk's context, then the sentence. */
  embedText: string;
};

const HEADING = /^#{1,6}\s/;

/**
 * The sentences of `evidence` to read by meaning, in evidence order. A command line under a description is read as a
 * sentence of its own (the decision was fitted so; the answerer quotes the two together).
 */
export function gradingSentences(evidence: readonly Chunk[]): GradingSentence[] {
  return evidence.slice(0, MEANING_CHUNKS).flatMap((chunk, index) => {
    const context = typeof chunk.context === 'string' ? chunk.context.trim() : '';
    return splitSentences(joinWrappedLines(chunk.text ?? ''))
      .filter((sentence) => !HEADING.test(sentence) && hasContent(sentence))
      .slice(0, MEANING_SENTENCES_PER_CHUNK)
      .map((sentence) => {
        const text = sentence.slice(0, MEANING_SENTENCE_CHARS);
        return { chunk: index, text, embedText: context ? `${context}: ${text}` : text };
      });
  });
}
