/*
 * Sentences of an answer or of a document, for the verifier (every sentence of an answer cites) and the extractive
 * answerer (it quotes whole sentences). A sentence ends at 。！？!?；; or a newline, or at a "." followed by
 * white space or the end (so "2.5" and "v1.2" stay whole); citation markers right after the end ("…。[1][2]") belong
 * to the sentence they follow.
 */

/** An inline citation marker, `[n]`. */
export const CITATION_MARKER = /\[(\d{1,3})\]/g;

const ENDS = new Set(['。', '！', '？', '!', '?', '；', ';', '\n']);
const TRAILING_MARKERS = /^(?:[ \t]*\[\d{1,3}\])+/;

/** The sentences of `text` in order, each as written (trimmed), markers included; blank ones dropped. */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    const endsHere = ENDS.has(char) || (char === '.' && (i + 1 === text.length || /\s/.test(text[i + 1] as string)));
    i += 1;
    if (!endsHere) continue;
    const trailing = TRAILING_MARKERS.exec(text.slice(i));
    if (trailing) i += trailing[0].length;
    sentences.push(text.slice(start, i));
    start = i;
  }
  sentences.push(text.slice(start));
  return sentences.map((sentence) => sentence.trim()).filter((sentence) => sentence !== '');
}

/**
 * Prose wrapped at a fixed width (release notes, man pages, plain-text FAQs) joined back into its lines' sentences: a
 * line break between a word and a lower-case word, a digit or an opening quote or bracket is a wrap, not a sentence
 * end ("several bugs in⏎4.2." → "several bugs in 4.2."). Headings, list items and Chinese lines keep their breaks.
 * Only for reading documents: a quote of the joined text still verifies, since matching ignores white space.
 */
export function joinWrappedLines(text: string): string {
  return text.replace(/([\p{L}\p{N},)`'"])[ \t]*\n[ \t]*(?=[a-z0-9(`'"])/gu, '$1 ');
}

/** The marker numbers of a sentence, in order, each once. */
export function markersOf(sentence: string): number[] {
  return [...new Set([...sentence.matchAll(CITATION_MARKER)].map((match) => Number(match[1])))];
}

/** True when a sentence says something: a letter or a digit once its markers are taken out. */
export function hasContent(sentence: string): boolean {
  return /[\p{L}\p{N}]/u.test(sentence.replace(CITATION_MARKER, ''));
}
