import type { AnswerDraft } from '../schemas/answer';
import { normalizeForMatch, quoteOccursIn } from './verify-answer';
import { markersOf, splitSentences } from './sentences';

/*
 * A small model's habit (issue 34 §3, measured on the local model): citations with verbatim quotes, and an answer
 * text with no marker at all ("Aurora X2 路由器的保修期是 2 年。" beside the quote "Aurora X2 路由器提供 2 年保修…"),
 * which the verifier can only call uncited. When the text has no marker, each citation whose quote is in its
 * document is placed after the sentence that says most of what the quote says. The verifier then judges the result
 * as it judges any answer; a sentence no quote backs stays uncited. Pure.
 */

/** A sentence takes a citation when at least this share of its character pairs occur in the quote. */
export const MIN_MARKER_OVERLAP = 0.3;

const pairsOf = (text: string): Set<string> => {
  const chars = [...normalizeForMatch(text)];
  return new Set(chars.slice(1).map((char, i) => `${chars[i]}${char}`));
};

function overlap(sentence: string, quote: string): number {
  const said = pairsOf(sentence);
  if (said.size === 0) return 0;
  const quoted = pairsOf(quote);
  return [...said].filter((pair) => quoted.has(pair)).length / said.size;
}

const ENDING = /[。！？!?；;.]+$/u;

/** The draft with its citations' markers placed, when its text has none; otherwise the draft as it is. */
export function placeMissingMarkers(draft: AnswerDraft, documents: readonly string[]): AnswerDraft {
  if (draft.citations.length === 0 || markersOf(draft.answer).length > 0) return draft;
  const sentences = splitSentences(draft.answer);
  const markers = sentences.map((): number[] => []);
  for (const citation of draft.citations) {
    const document = documents[citation.doc_index - 1];
    if (document === undefined || !quoteOccursIn(citation.quote, document)) continue;
    const scores = sentences.map((sentence) => overlap(sentence, citation.quote));
    const best = scores.indexOf(Math.max(...scores));
    if (best >= 0 && (scores[best] ?? 0) >= MIN_MARKER_OVERLAP) markers[best]?.push(citation.marker);
  }
  if (markers.every((placed) => placed.length === 0)) return draft;
  let text = draft.answer;
  let cursor = 0;
  sentences.forEach((sentence, i) => {
    const at = text.indexOf(sentence, cursor);
    if (at < 0) return;
    const placed = (markers[i] ?? []).map((marker) => `[${marker}]`).join('');
    const ending = ENDING.exec(sentence)?.[0] ?? '';
    const marked = `${sentence.slice(0, sentence.length - ending.length)}${placed}${ending}`;
    text = text.slice(0, at) + marked + text.slice(at + sentence.length);
    cursor = at + marked.length;
  });
  return { ...draft, answer: text };
}
