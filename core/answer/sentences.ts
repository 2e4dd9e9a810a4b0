/*
 * Sentences of an answer or of a document, for the verifier (every sentence of an answer cites) and the extractive
 * answerer (it quotes whole sentences). A sentence ends at 。！？!?；; or a newline, or at a "." followed by
 * white space or the end (so "2.5" and "v1.2" stay whole), but not inside an inline code span; citation markers
 * right after the end ("…。[1][2]") belong to the sentence they follow.
 */

/** An inline citation marker, `[n]`. */
export const CITATION_MARKER = /\[(\d{1,3})\]/g;

const ENDS = new Set(['。', '！', '？', '!', '?', '；', ';', '\n']);
const TRAILING_MARKERS = /^(?:[ \t]*\[\d{1,3}\])+/;

/** A sentence of a text and where it lies: `text` is `source.slice(start, end)` trimmed. */
export type SentenceSpan = { text: string; start: number; end: number };

/**
 * The sentences of `text` in order with their places, blank ones dropped. Inside an inline code span (`…`, closed by
 * a run of as many backticks as opened it) only a newline ends a sentence: "`cd ..; make`" is one command.
 */
export function sentenceSpans(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  let start = 0;
  let i = 0;
  let codeRun = 0;
  const push = (end: number) => {
    const raw = text.slice(start, end);
    const trimmed = raw.trim();
    if (trimmed !== '') spans.push({ text: trimmed, start: start + raw.indexOf(trimmed), end });
    start = end;
  };
  while (i < text.length) {
    const char = text[i] as string;
    if (char === '`') {
      const run = /^`+/.exec(text.slice(i))?.[0].length ?? 1;
      codeRun = codeRun === 0 ? run : codeRun === run ? 0 : codeRun;
      i += run;
      continue;
    }
    if (char === '\n') codeRun = 0;
    const endsHere =
      char === '\n' || (codeRun === 0 && (ENDS.has(char) || (char === '.' && (i + 1 === text.length || /\s/.test(text[i + 1] as string)))));
    i += 1;
    if (!endsHere) continue;
    const trailing = TRAILING_MARKERS.exec(text.slice(i));
    if (trailing) i += trailing[0].length;
    push(i);
  }
  push(text.length);
  return spans;
}

/** The sentences of `text` in order, each as written (trimmed), markers included; blank ones dropped. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map((span) => span.text);
}

/**
 * Prose wrapped at a fixed width (release notes, man pages, plain-text FAQs) joined back into its lines' sentences: a
 * line break between a word and a lower-case word, a digit or an opening quote or bracket is a wrap, not a sentence
 * end ("several bugs in⏎4.2." → "several bugs in 4.2."). Headings, list items, Chinese lines and fenced code blocks
 * keep their breaks.
 * Only for reading documents: a quote of the joined text still verifies, since matching ignores white space.
 */
export function joinWrappedLines(text: string): string {
  const join = (prose: string) => prose.replace(/([\p{L}\p{N},)`'"])[ \t]*\n[ \t]*(?=[a-z0-9(`'"])(?!```|~~~)/gu, '$1 ');
  // Fenced code blocks (``` or ~~~ … the same fence) are code: their lines stay as written.
  let joined = '';
  let from = 0;
  for (const block of text.matchAll(FENCED_BLOCK)) {
    joined += join(text.slice(from, block.index)) + block[0];
    from = (block.index as number) + block[0].length;
  }
  return joined + join(text.slice(from));
}

// A fenced block with its fences; unclosed, it runs to the end.
const FENCED_BLOCK = /(?<=^|\n)[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n[ \t]*\1[^\n]*(?=\n|$)|$)/gu;

/** The marker numbers of a sentence, in order, each once. */
export function markersOf(sentence: string): number[] {
  return [...new Set([...sentence.matchAll(CITATION_MARKER)].map((match) => Number(match[1])))];
}

/** True when a sentence says something: a letter or a digit once its markers are taken out. */
export function hasContent(sentence: string): boolean {
  return /[\p{L}\p{N}]/u.test(sentence.replace(CITATION_MARKER, ''));
}
