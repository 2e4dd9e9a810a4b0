import { type ExampleBlock, examplesAfter } from './example-lines';
import { hasContent, joinWrappedLines, sentenceSpans } from './sentences';

/*
 * The sentences the extractive answerer may quote (docs/offline-policy.md, "Answerer"), each with the example lines
 * right under it (example-lines.ts): a command page's entry and its command line are one unit, so an example line
 * is not a sentence of its own. A later sentence of a list entry that opens with code ("- `-c --stdout`: Write on
 * standard output; keep original files unchanged.") has that entry's first sentence as its `head`: the option is what
 * the sentence is about, and is quoted with it. A caller that scores sentences by meaning (embeddings) scores these.
 * Pure.
 */

/**
 * A quotable sentence: document `doc` (0-based), its place among the document's sentences, its text as written, the
 * example lines under it, and `head`, the first sentence of its list entry when that one opens with code (see below).
 */
export type AnswerSentence = { doc: number; position: number; text: string; examples: ExampleBlock[]; head?: AnswerSentence };

// A Markdown heading names a section; it answers nothing.
const HEADING = /^#{1,6}\s/;
// A list entry that opens with code names an option or a command: "- `-k, --keep`: Keep input files. …".
const CODE_ENTRY = /^[-*+]\s+`/u;

/** The quotable sentences of `documents`, in order: not headings, not blank, not an example line of the one above. */
export function answerSentences(documents: readonly string[]): AnswerSentence[] {
  return documents.flatMap((raw, doc) => {
    const text = joinWrappedLines(raw);
    const sentences: AnswerSentence[] = [];
    let exampleEnd = -1;
    let entry: { lineStart: number; head: AnswerSentence } | null = null;
    sentenceSpans(text).forEach((span, position) => {
      if (span.start < exampleEnd || HEADING.test(span.text) || !hasContent(span.text)) return;
      const examples = examplesAfter(text, span);
      if (examples.length > 0) exampleEnd = (examples[examples.length - 1] as ExampleBlock).end;
      const lineStart = text.lastIndexOf('\n', span.start - 1) + 1;
      const sentence: AnswerSentence = { doc, position, text: span.text, examples };
      if (entry !== null && entry.lineStart === lineStart) sentence.head = entry.head;
      else entry = lineStart === span.start && CODE_ENTRY.test(span.text) ? { lineStart, head: sentence } : null;
      sentences.push(sentence);
    });
    return sentences;
  });
}

/** What a sentence is matched on: its text and its example lines, lower-cased. */
export const haystackOf = (sentence: AnswerSentence): string =>
  [sentence.text, ...sentence.examples.flatMap((block) => block.lines)].join('\n').toLowerCase();
