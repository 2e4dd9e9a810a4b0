import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isRagError } from '../../../core/errors';
import { CHUNK_SEPARATORS } from '../../../core/ingest/hierarchy';
import { codePointLength, mergeSplits, splitText } from '../../../core/ingest/recursive-splitter';

/*
 * Every expected chunk list below is the output of LangChain's Python splitter (langchain-text-splitters 1.1.3,
 * CPython 3.11): RecursiveCharacterTextSplitter(chunk_size=…, chunk_overlap=…, separators=<spec §6.11 list>)
 * .split_text(text), with the original's defaults (keep_separator=True, is_separator_regex=False). The random
 * cases come from test/fixtures/splitter/generate.py, whose header says how to rerun it.
 */

const split = (text: string, chunkSize: number, chunkOverlap: number) => splitText(text, { chunkSize, chunkOverlap, separators: CHUNK_SEPARATORS });

describe('recursive character splitter: parity with LangChain (spec §6.11)', () => {
  test.each([
    ['第一段。第二段！第三段？\n\n新段落，逗号、顿号 空格 more words here', 10, 3, ['第一段', '。第二段！第三段？', '新段落', '，逗号', '、顿号 空格', '空格 more', 'words', 'here']],
    ['a b c d e f g h i j', 5, 2, ['a b c', 'c d', 'd e', 'e f', 'f g', 'g h', 'h i', 'i j']],
    ['one two three four five six seven eight nine ten', 12, 6, ['one two', 'two three', 'three four', 'four five', 'five six', 'six seven', 'seven eight', 'eight nine', 'nine ten']],
    ['😀😀😀 😀😀 😀', 3, 1, ['😀😀😀', '😀😀', '😀']],
    ['。。。！！？？', 2, 0, ['。。', '。！', '！？', '？']],
    ['  leading and trailing  \n\n  second paragraph  ', 12, 0, ['leading', 'and', 'trailing', 'second', 'paragraph']],
    ['句子一。句子二。句子三。句子四。句子五。', 8, 4, ['句子一。句子二', '。句子二。句子三', '。句子三。句子四', '。句子四。句子五', '。句子五。']],
    ['aaaa\nbbbb\ncccc\n\ndddd', 9, 4, ['aaaa\nbbbb', 'cccc', 'dddd']],
  ])('%j at size %i, overlap %i', (text, size, overlap, expected) => {
    expect(split(text, size, overlap)).toEqual(expected);
  });

  const cases: Array<{ text: string; chunk_size: number; chunk_overlap: number; chunks: string[] }> = JSON.parse(
    readFileSync(path.join(__dirname, '../../fixtures/splitter/langchain-cases.json'), 'utf8'),
  );

  test('60 random texts (Chinese, ASCII, blank lines, tabs, U+3000, emoji) at sizes 1–100 match LangChain', () => {
    expect(cases).toHaveLength(60);
    for (const c of cases) expect({ text: c.text, chunks: split(c.text, c.chunk_size, c.chunk_overlap) }).toEqual({ text: c.text, chunks: c.chunks });
  });

  test('_merge_splits warns about a chunk longer than chunk_size, with the Python message', () => {
    // Python: splitter._merge_splits(["abcdef", "gh", "i"], "") at chunk_size 4 → ["abcdef", "ghi"] and the warning.
    const warnings: string[] = [];
    const merged = mergeSplits(['abcdef', 'gh', 'i'], '', { chunkSize: 4, chunkOverlap: 0, separators: [], onWarning: (m) => warnings.push(m) });
    expect(merged).toEqual(['abcdef', 'ghi']);
    expect(warnings).toEqual(['Created a chunk of size 6, which is longer than the specified 4']);
  });

  test('length is Python len(): code points, so an emoji counts once', () => {
    expect(codePointLength('a😀b')).toBe(3);
    expect(codePointLength('\uD83D')).toBe(1); // a lone surrogate is one code point in Python too
    expect(codePointLength('')).toBe(0);
  });

  test('empty and whitespace-only texts give no chunks', () => {
    expect(split('', 10, 0)).toEqual([]);
    expect(split(' \n\n \n', 10, 0)).toEqual([]);
  });

  test.each([
    [0, 0, 'chunk_size must be > 0, got 0'],
    [5, -1, 'chunk_overlap must be >= 0, got -1'],
    [5, 6, 'Got a larger chunk overlap (6) than chunk size (5), should be smaller.'],
  ])('size %i, overlap %i is INVALID_CONFIG with the Python message', (size, overlap, message) => {
    let caught: unknown;
    try {
      split('text', size, overlap);
    } catch (error) {
      caught = error;
    }
    expect(isRagError(caught) && caught.code === 'INVALID_CONFIG' && caught.message).toBe(message);
  });
});
