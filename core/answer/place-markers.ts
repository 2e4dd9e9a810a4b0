import type { AnswerDraft } from '../schemas/answer';
import { normalizeForMatch, quoteOccursIn } from './verify-answer';
import { hasContent, markersOf, splitSentences } from './sentences';

/*
 * A small model's habit (issue 34 §3, measured on the local model): citations with verbatim quotes, and an answer
 * text that does not carry their markers — none at all ("Aurora X2 路由器的保修期是 2 年。" beside the quote "Aurora
 * X2 路由器提供 2 年保修…"), or only some, or a marker on a line of its own under the answer ("Run `git rebase
 * --abort`.⏎⏎[1]", issue 43 §4), where it backs no sentence. The verifier can only call such a sentence uncited,
 * though its quote is in its source. So each citation whose quote is in its document and whose marker no sentence
 * carries is placed after the sentence that says most of what the quote says, among the sentences that carry no
 * citation that holds. A citation is placed once (a quote that barely shares pairs with a sentence is no support: a
 * generic sentence shares 40 % of its character pairs with any long English quote). The verifier then judges the
 * result as it judges any answer; a sentence no quote backs stays uncited. Pure.
 */

/** A sentence takes a citation when at least this share of its character pairs occur in the quote. */
export const MIN_MARKER_OVERLAP = 0.3;

const pairsOf = (text: string): Set<string> => {
  const chars = [...normalizeForMatch(text)];
  return new Set(chars.slice(1).map((char, i) => `${chars[i]}${char}`));
};

/** A quote this long (normalized characters) that a sentence holds whole backs it, however long the sentence. */
export const MIN_HELD_QUOTE = 8;

/**
 * How well a quote backs a sentence: the share of the sentence's character pairs found in the quote, or 1 when the
 * sentence holds the whole quote ("…, run `git rebase --abort`." beside the quote "git rebase --abort": a long
 * sentence around a short verbatim quote shares few of its pairs with it).
 */
function overlap(sentence: string, quote: string): number {
  const held = normalizeForMatch(quote);
  if ([...held].length >= MIN_HELD_QUOTE && normalizeForMatch(sentence).includes(held)) return 1;
  const said = pairsOf(sentence);
  if (said.size === 0) return 0;
  const quoted = pairsOf(quote);
  return [...said].filter((pair) => quoted.has(pair)).length / said.size;
}

const ENDING = /[。！？!?；;.]+$/u;

/**
 * The draft with the markers it lacks placed: each holding citation whose marker no sentence with content carries
 * goes to the sentence, among those carrying no holding marker, that its quote backs best. The draft as it is when
 * every holding citation is carried or none fits.
 */
export function placeMissingMarkers(draft: AnswerDraft, documents: readonly string[]): AnswerDraft {
  if (draft.citations.length === 0) return draft;
  const sentences = splitSentences(draft.answer);
  const holding = draft.citations.filter((citation) => {
    const document = documents[citation.doc_index - 1];
    return document !== undefined && quoteOccursIn(citation.quote, document);
  });
  const holdingMarkers = new Set(holding.map((citation) => citation.marker));
  const carried = new Set(sentences.filter(hasContent).flatMap(markersOf));
  // A sentence may take a marker when it says something and no citation that holds backs it yet.
  const open = sentences.map((sentence) => hasContent(sentence) && !markersOf(sentence).some((marker) => holdingMarkers.has(marker)));
  const markers = sentences.map((): number[] => []);
  for (const citation of holding) {
    if (carried.has(citation.marker)) continue;
    const scores = sentences.map((sentence, i) => (open[i] ? overlap(sentence, citation.quote) : 0));
    const best = scores.indexOf(Math.max(...scores));
    if (best < 0 || (scores[best] ?? 0) < MIN_MARKER_OVERLAP) continue;
    markers[best]?.push(citation.marker);
    // A marker listed twice is placed once.
    carried.add(citation.marker);
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
