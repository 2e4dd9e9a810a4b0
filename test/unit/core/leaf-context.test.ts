import { buildHierarchy, LEAF_LEVEL } from '../../../core/ingest/hierarchy';
import type { LoadedDocument } from '../../../core/ingest/ingest-io';
import {
  chunksFor,
  CONTEXT_MAX_CHARS,
  headingPath,
  indexedText,
  leafContext,
  locate,
  markdownHeadings,
  withLeafContexts,
} from '../../../core/ingest/leaf-context';
import { sanitizeDocument } from '../../../core/ingest/sanitize';
import { documentTitle } from '../../../core/knowledge/document-title';
import { mergePass } from '../../../core/retrieval/auto-merge';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';
import { normalizeRagSubTrace } from '../../../core/trace/normalize';

/*
 * Contextual leaves (issue 42 §1): each chunk carries its document's title and the Markdown headings in force where
 * it starts; its text stays the document's own. The documents here are written for the test: a company page whose
 * hotline section does not name the company (the "客服热线 400-…" case) and a command page.
 */

const doc = (filename: string, file_type: string, ...pages: string[]): LoadedDocument =>
  sanitizeDocument({ filename, file_path: `docs/${filename}`, file_type, pages: pages.map((text, page_number) => ({ page_number, text })) });

const contextual = (document: LoadedDocument) => withLeafContexts(document, buildHierarchy(document));
const leavesOf = (document: LoadedDocument) => contextual(document).filter((chunk) => chunk.chunk_level === LEAF_LEVEL);

const COMPANY = ['# 星途科技', '', '星途科技成立于2015年，总部位于杭州。', '', '## 联系我们', '', '### 客服', '', '客服热线 400-820-1234，工作日 9:00-18:00。'].join('\n');

describe('markdownHeadings and headingPath', () => {
  test('ATX headings with their offsets; closing #s dropped; lines in fenced code are comments, not headings', () => {
    const text = ['# tar', '', '## Extract archives ##', '```sh', '# not a heading', '```', '#hashtag is no heading', '   ### Deep'].join('\n');
    expect(markdownHeadings(text)).toEqual([
      { offset: 0, level: 1, text: 'tar' },
      { offset: 7, level: 2, text: 'Extract archives' },
      { offset: text.indexOf('   ### Deep'), level: 3, text: 'Deep' },
    ]);
  });

  test('a heading replaces those of its level and below; a chunk starting on a heading is under it', () => {
    const headings = markdownHeadings(['# T', '## A', '### A1', '## B', 'body'].join('\n'));
    expect(headingPath(headings, 0)).toEqual(['T']);
    expect(headingPath(headings, 9)).toEqual(['T', 'A', 'A1']); // "### A1" starts at 9
    expect(headingPath(headings, 16)).toEqual(['T', 'B']); // "## B" starts at 16
    expect(headingPath(headings, 10_000, [{ level: 1, text: 'Earlier page' }])).toEqual(['T', 'B']);
    expect(headingPath([], 5, [{ level: 2, text: 'From page 1' }])).toEqual(['From page 1']);
  });
});

describe('leafContext and indexedText', () => {
  test('the title first, the level-1 heading that is the title not repeated, cut to CONTEXT_MAX_CHARS', () => {
    expect(leafContext('tar', ['tar', 'Extract archives'])).toBe('tar › Extract archives');
    expect(leafContext('tar', ['Extract archives'])).toBe('tar › Extract archives');
    expect(leafContext('notes', [])).toBe('notes');
    const long = leafContext('t', ['x'.repeat(500)]);
    expect(long).toHaveLength(CONTEXT_MAX_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  test('what is embedded and indexed: context, newline, text; the text alone without a context', () => {
    expect(indexedText({ text: '客服热线 400-820-1234', context: '星途科技 › 联系我们' })).toBe('星途科技 › 联系我们\n客服热线 400-820-1234');
    expect(indexedText({ text: 'plain' })).toBe('plain');
  });

  test('locate finds overlapping pieces in order, and keeps the previous position for a piece it cannot find', () => {
    expect(locate('abcabc', 'abc', 0)).toBe(0);
    expect(locate('abcabc', 'abc', 1)).toBe(3);
    expect(locate('abc def', 'zzz', 4)).toBe(3);
  });
});

describe('withLeafContexts', () => {
  test("issue 42: the hotline section's leaf carries the company's name from the title; its text is unchanged", () => {
    const document = doc('xingtu.md', 'Markdown', COMPANY);
    const plain = buildHierarchy(document);
    const chunks = contextual(document);
    expect(chunks.map(({ context: _context, ...rest }) => rest)).toEqual(plain); // only `context` is added
    expect(chunks.every((chunk) => chunk.context === '星途科技')).toBe(true); // one short leaf: it starts at the title
  });

  test('leaves of a longer Markdown page get the headings where each starts (L3 found in L2, L2 in L1, L1 in the page)', () => {
    const filler = (word: string) => Array.from({ length: 60 }, (_, i) => `${word} sentence ${i} of the section.`).join(' ');
    const text = ['# tar', '', '> Archiving utility.', '', '## Create archives', '', filler('create'), '', '## Extract archives', '', filler('extract'), '', '### Into a directory', '', filler('target')].join('\n');
    const leaves = leavesOf(doc('tar.md', 'Markdown', text));
    expect(leaves.length).toBeGreaterThan(3);
    for (const leaf of leaves) {
      const word = /^(?:#+ [^\n]*\n+)?(\w+) sentence/.exec(leaf.text)?.[1];
      if (word === 'create') expect(leaf.context).toBe('tar › Create archives');
      if (word === 'extract') expect(leaf.context).toBe('tar › Extract archives');
      if (word === 'target') expect(leaf.context).toBe('tar › Extract archives › Into a directory');
    }
    expect(new Set(leaves.map((leaf) => leaf.context))).toEqual(new Set(['tar', 'tar › Create archives', 'tar › Extract archives', 'tar › Extract archives › Into a directory']));
  });

  test('no level-1 heading: the title is the file name without extension; Text and PDF have no heading path', () => {
    expect(leavesOf(doc('release-notes-2.4.md', 'Markdown', '## Fixes\n\nThe crash on start is fixed.'))[0]?.context).toBe('release-notes-2.4 › Fixes');
    expect(leavesOf(doc('faq.txt', 'Text', '## not markdown here\n\nA line.'))[0]?.context).toBe('faq');
    expect(leavesOf(doc('manual.pdf', 'PDF', 'Page one.', 'Page two.')).map((leaf) => leaf.context)).toEqual(['manual', 'manual']);
    expect(leavesOf(doc('guide.txt', 'Text', '# Guide Title\n\nBody.'))[0]?.context).toBe('Guide Title');
    // A "# " line in a Markdown code block is a comment, not the title.
    expect(leavesOf(doc('tar.md', 'Markdown', '```sh\n# list the files\ntar tf a.tar\n```\n\n# tar\n\nBody.'))[0]?.context).toBe('tar');
  });

  test('HTML sections: a later page continues under the headings of the earlier ones', () => {
    const leaves = leavesOf(doc('site.html', 'HTML', '# Site\n\nIntro.', '[章节: Pricing]\n\n## Pricing\n\nTen euros.'));
    expect(leaves.map((leaf) => leaf.context)).toEqual(['Site', 'Site › Pricing']);
  });

  test('chunksFor: a plain knowledge base stores the chunks without context, a contextual one as they are', () => {
    const chunks = contextual(doc('a.md', 'Markdown', '# A\n\ntext'));
    expect(chunksFor(chunks, 'plain').every((chunk) => !('context' in chunk))).toBe(true);
    expect(chunksFor(chunks, 'contextual-v1')).toEqual(chunks);
  });
});

describe('contexts after retrieval', () => {
  const leaf = (n: number, context: string): Chunk => ({ chunk_id: `d::p0::l3::${n}`, parent_chunk_id: 'd::p0::l2::0', chunk_idx: n + 2, filename: 'd.md', text: `leaf ${n}`, context, score: 1 });

  test("a merged parent carries the context of its earliest child among the candidates (the parent store keeps none)", () => {
    const parent: Chunk = { chunk_id: 'd::p0::l2::0', parent_chunk_id: 'd::p0::l1::0', chunk_idx: 1, filename: 'd.md', text: 'leaf 0 leaf 1 leaf 2' };
    const { chunks } = mergePass([leaf(2, 'T › B'), leaf(1, 'T › A')], new Map([[parent.chunk_id!, parent]]), 2);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ chunk_id: 'd::p0::l2::0', text: 'leaf 0 leaf 1 leaf 2', context: 'T › A', merged_from_children: true });
  });

  test('documentTitle reads the title from a contextual leaf when no retrieved text holds the level-1 heading', () => {
    const hit: Chunk = { filename: 'xingtu.md', doc_id: 'docs/xingtu.md', text: '客服热线 400-820-1234。', context: '星途科技 › 联系我们 › 客服' };
    expect(documentTitle(hit, [hit])).toBe('星途科技');
    expect(documentTitle({ ...hit, context: undefined }, [{ ...hit, context: undefined }])).toBe('xingtu');
  });

  test('the trace protocol keeps its 6 chunk fields: normalization drops `context`', () => {
    const trace = normalizeRagSubTrace({ retrieved_chunks: [{ filename: 'd.md', text: 'leaf', context: 'T › A', score: 0.5 }] });
    expect(trace?.retrieved_chunks).toEqual([{ filename: 'd.md', text: 'leaf', score: 0.5 }]);
  });
});
