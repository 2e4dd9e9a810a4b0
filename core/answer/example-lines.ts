import type { SentenceSpan } from './sentences';

/*
 * The command, code or example lines right under a sentence (issue 42 §5): on a command reference page the entry
 * "- Extract a (compressed) archive file into the target directory:" is followed by the line a person needs,
 * "`tar xf path/to/source.tar --directory path/to/directory`". The extractive answerer quotes them with the sentence.
 * Example lines are, after the sentence's line and blank lines: a line that is one inline code span; a line starting
 * with a shell prompt `$ `; a fenced block (``` or ~~~, its content); lines indented at least 4 more than the
 * sentence's own line, after a blank line (a Markdown code block). They stop at the first other line (the next entry)
 * and after MAX_EXAMPLE_LINES lines. Pure.
 */

/** At most this many example lines are quoted under one sentence (a long listing is the page's, not the answer's). */
export const MAX_EXAMPLE_LINES = 6;

/** A run of example lines: `lines` as they read (trimmed), `quote` the text from the first to the last, verbatim. */
export type ExampleBlock = { lines: string[]; quote: string; start: number; end: number };

type Line = { text: string; start: number; end: number };

const INLINE_CODE_LINE = /^(`+)[^`].*\1$/u;
const PROMPT_LINE = /^\$\s+\S/u;
const FENCE = /^(`{3,}|~{3,})/u;

const indentOf = (line: string): number => {
  const lead = /^[ \t]*/u.exec(line)?.[0] ?? '';
  return [...lead].reduce((width, char) => width + (char === '\t' ? 4 : 1), 0);
};

/** The line starting at `start`, or null at the text's end. */
function lineAt(text: string, start: number): Line | null {
  if (start >= text.length) return null;
  const newline = text.indexOf('\n', start);
  const end = newline < 0 ? text.length : newline;
  return { text: text.slice(start, end), start, end };
}

const blockOf = (text: string, lines: readonly Line[]): ExampleBlock => {
  const first = lines[0] as Line;
  const last = lines[lines.length - 1] as Line;
  const start = first.start + first.text.length - first.text.trimStart().length;
  const end = last.start + last.text.trimEnd().length;
  return { lines: lines.map((line) => line.text.trim()), quote: text.slice(start, end), start, end };
};

/** The example blocks right under `sentence` in `text`; none when the sentence does not end its line. */
export function examplesAfter(text: string, sentence: SentenceSpan): ExampleBlock[] {
  const textEnd = sentence.start + sentence.text.length;
  const lineEnd = text.indexOf('\n', textEnd);
  if (lineEnd < 0 || text.slice(textEnd, lineEnd).trim() !== '') return [];
  const lineStart = text.lastIndexOf('\n', sentence.start - 1) + 1;
  const indent = indentOf(text.slice(lineStart, sentence.start));
  const blocks: ExampleBlock[] = [];
  let run: Line[] = [];
  let taken = 0;
  let blankBefore = false;
  const close = () => {
    if (run.length > 0) blocks.push(blockOf(text, run));
    run = [];
  };
  for (let line = lineAt(text, lineEnd + 1); line !== null && taken < MAX_EXAMPLE_LINES; line = lineAt(text, line.end + 1)) {
    const trimmed = line.text.trim();
    if (trimmed === '') {
      close();
      blankBefore = true;
      continue;
    }
    const fence = FENCE.exec(trimmed);
    if (fence) {
      close();
      const content: Line[] = [];
      let inner = lineAt(text, line.end + 1);
      for (; inner !== null && !inner.text.trim().startsWith(fence[1] as string); inner = lineAt(text, inner.end + 1)) {
        if (inner.text.trim() !== '' && taken + content.length < MAX_EXAMPLE_LINES) content.push(inner);
      }
      if (content.length > 0) blocks.push(blockOf(text, content));
      taken += content.length;
      if (inner === null) break;
      line = inner;
      blankBefore = false;
      continue;
    }
    const indented = indentOf(line.text) >= indent + 4 && (blankBefore || run.length > 0);
    if (!INLINE_CODE_LINE.test(trimmed) && !PROMPT_LINE.test(trimmed) && !indented) break;
    run.push(line);
    taken += 1;
    blankBefore = false;
  }
  close();
  return blocks;
}

/** An example line as the answer shows it: a code span (the line itself when it already is one). */
export function codeSpan(line: string): string {
  if (INLINE_CODE_LINE.test(line)) return line;
  return line.includes('`') ? `\`\` ${line} \`\`` : `\`${line}\``;
}
