import { codeSpan, examplesAfter, MAX_EXAMPLE_LINES } from '../../../core/answer/example-lines';
import { joinWrappedLines, sentenceSpans, splitSentences } from '../../../core/answer/sentences';

// A command page in the shape of a short reference page (written for this test): an entry, a blank line, its command.
const PAGE = [
  '# pack',
  '',
  '> Bundle files into one archive.',
  '',
  '- Unpack an archive into a chosen directory:',
  '',
  '`pack extract path/to/archive.pk --into path/to/directory`',
  '',
  '- List what an archive holds:',
  '',
  '`pack list path/to/archive.pk`',
].join('\n');

const spanOf = (text: string, sentence: string) => sentenceSpans(text).find((span) => span.text === sentence) as ReturnType<typeof sentenceSpans>[number];

describe('examplesAfter', () => {
  test('the inline-code line under an entry is its example; the next entry is not', () => {
    const blocks = examplesAfter(PAGE, spanOf(PAGE, '- Unpack an archive into a chosen directory:'));
    expect(blocks.map((block) => block.quote)).toEqual(['`pack extract path/to/archive.pk --into path/to/directory`']);
    expect(PAGE.slice(blocks[0]?.start, blocks[0]?.end)).toBe(blocks[0]?.quote);
  });

  test('prompt lines, a fenced block (its content) and an indented block after a blank line', () => {
    const text = 'Install it:\n$ pip install pack\n$ pack --version\nThen build:\n\n```sh\nmake\nmake install\n```\nOr by hand:\n\n    cc -o pack pack.c\n\nDone.';
    expect(examplesAfter(text, spanOf(text, 'Install it:')).map((block) => block.lines)).toEqual([['$ pip install pack', '$ pack --version']]);
    expect(examplesAfter(text, spanOf(text, 'Then build:')).map((block) => block.quote)).toEqual(['make\nmake install']);
    expect(examplesAfter(text, spanOf(text, 'Or by hand:')).map((block) => block.lines)).toEqual([['cc -o pack pack.c']]);
  });

  test('nothing when prose follows, when the sentence does not end its line, or for lines indented like the sentence', () => {
    expect(examplesAfter('See below.\nThe next line is prose.', spanOf('See below.\nThe next line is prose.', 'See below.'))).toEqual([]);
    const midLine = 'Run this. It lists:\n`pack list a.pk`';
    expect(examplesAfter(midLine, spanOf(midLine, 'Run this.'))).toEqual([]);
    const manPage = '       Extract files.\n\n       The archive is read.';
    expect(examplesAfter(manPage, spanOf(manPage, 'Extract files.'))).toEqual([]);
  });

  test(`at most ${MAX_EXAMPLE_LINES} lines`, () => {
    const long = `Steps:\n\`\`\`\n${Array.from({ length: 10 }, (_, i) => `step ${i}`).join('\n')}\n\`\`\``;
    expect(examplesAfter(long, spanOf(long, 'Steps:'))[0]?.lines).toHaveLength(MAX_EXAMPLE_LINES);
  });

  test('codeSpan shows a line as code, as it is when it already is a span', () => {
    expect(codeSpan('`pack list a.pk`')).toBe('`pack list a.pk`');
    expect(codeSpan('$ pack list a.pk')).toBe('`$ pack list a.pk`');
    expect(codeSpan('echo `date`')).toBe('`` echo `date` ``');
  });
});

describe('sentences of code', () => {
  test('a sentence does not end inside an inline code span, and a span of two backticks holds a single one', () => {
    expect(splitSentences("Remove logs: `find . -name '*.log' -delete; echo done`[2]\nNext. Then `` a`b; c `` ends.")).toEqual([
      "Remove logs: `find . -name '*.log' -delete; echo done`[2]",
      'Next.',
      'Then `` a`b; c `` ends.',
    ]);
  });

  test('a fenced block keeps its line breaks when wrapped prose around it is joined', () => {
    expect(joinWrappedLines('Install it\nwith pip:\n\n```sh\ncd pack\nmake\n```\nand\nthen run it.')).toBe('Install it with pip:\n\n```sh\ncd pack\nmake\n```\nand then run it.');
  });
});
