import { createHash } from 'node:crypto';
import {
  CHUNK_SEPARATORS,
  L1_CHUNK_OVERLAP,
  L1_CHUNK_SIZE,
  L2_CHUNK_OVERLAP,
  L2_CHUNK_SIZE,
  L3_CHUNK_OVERLAP,
  L3_CHUNK_SIZE,
  buildHierarchy,
  chunkId,
  countLevels,
  type HierarchyChunk,
} from '../../../core/ingest/hierarchy';
import type { LoadedDocument } from '../../../core/ingest/ingest-io';
import { sanitizeDocument } from '../../../core/ingest/sanitize';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12);
const row = (c: HierarchyChunk) => [c.chunk_id, c.parent_chunk_id, c.root_chunk_id, c.chunk_idx, Array.from(c.text).length, sha(c.text)];

// Four pages: long Chinese sentences with a blank line every ten, 700 English words with a newline every twelve,
// a blank page and a one-sentence page. The same text is built in Python below.
const page0 = Array.from({ length: 200 }, (_, i) => `第${i}句：Temporal 与 Milvus 的检索测试，内容编号${i}。${i % 10 === 9 ? '\n\n' : ''}`).join('');
const page1 = Array.from({ length: 700 }, (_, i) => `word${i}${i % 12 === 11 ? '\n' : ' '}`).join('');
// The document id (file_path) is the file name here, as the original identified documents: its chunk ids are the
// original's. DESIGN §4b puts the document id in the file name's place.
const doc: LoadedDocument = {
  filename: 'doc.pdf',
  file_path: 'doc.pdf',
  file_type: 'PDF',
  pages: [
    { page_number: 0, text: page0 },
    { page_number: 1, text: page1 },
    { page_number: 2, text: '  \n ' },
    { page_number: 3, text: '短页。' },
  ],
};

/*
 * Expected rows [chunk_id, parent, root, chunk_idx, len(text), sha256(text)[:12]] were produced by the original's
 * `_load_from_langchain_docs` / `_split_page_to_three_levels` loop (document_loader.py, spec §0.1) run in CPython
 * 3.11 over the real langchain-text-splitters 1.1.3 splitters (2400/400, 1600/200, 800/100) on the pages above.
 */
const EXPECTED = [
    ["doc.pdf::p0::l1::0", "", "doc.pdf::p0::l1::0", 0, 2150, "ee233831de6f"],
    ["doc.pdf::p0::l2::0", "doc.pdf::p0::l1::0", "doc.pdf::p0::l1::0", 1, 1426, "600289f931ab"],
    ["doc.pdf::p0::l3::0", "doc.pdf::p0::l2::0", "doc.pdf::p0::l1::0", 2, 702, "5b9221f9084c"],
    ["doc.pdf::p0::l3::1", "doc.pdf::p0::l2::0", "doc.pdf::p0::l1::0", 3, 722, "6b8473b28872"],
    ["doc.pdf::p0::l2::1", "doc.pdf::p0::l1::0", "doc.pdf::p0::l1::0", 4, 722, "54c7abb6d6ef"],
    ["doc.pdf::p0::l3::2", "doc.pdf::p0::l2::1", "doc.pdf::p0::l1::0", 5, 722, "54c7abb6d6ef"],
    ["doc.pdf::p0::l1::1", "", "doc.pdf::p0::l1::1", 6, 2190, "9ba8b0f79ef5"],
    ["doc.pdf::p0::l2::2", "doc.pdf::p0::l1::1", "doc.pdf::p0::l1::1", 7, 1446, "41588a6240c5"],
    ["doc.pdf::p0::l3::3", "doc.pdf::p0::l2::2", "doc.pdf::p0::l1::1", 8, 722, "2ff61f4b6837"],
    ["doc.pdf::p0::l3::4", "doc.pdf::p0::l2::2", "doc.pdf::p0::l1::1", 9, 722, "21e63ce9e2bb"],
    ["doc.pdf::p0::l2::3", "doc.pdf::p0::l1::1", "doc.pdf::p0::l1::1", 10, 742, "7a5993dba38b"],
    ["doc.pdf::p0::l3::5", "doc.pdf::p0::l2::3", "doc.pdf::p0::l1::1", 11, 742, "7a5993dba38b"],
    ["doc.pdf::p0::l1::2", "", "doc.pdf::p0::l1::2", 12, 2290, "cad93a730a1c"],
    ["doc.pdf::p0::l2::4", "doc.pdf::p0::l1::2", "doc.pdf::p0::l1::2", 13, 1526, "e876925367bf"],
    ["doc.pdf::p0::l3::6", "doc.pdf::p0::l2::4", "doc.pdf::p0::l1::2", 14, 762, "79a0a8555b04"],
    ["doc.pdf::p0::l3::7", "doc.pdf::p0::l2::4", "doc.pdf::p0::l1::2", 15, 762, "0eb62336b74f"],
    ["doc.pdf::p0::l2::5", "doc.pdf::p0::l1::2", "doc.pdf::p0::l1::2", 16, 762, "90055e5eadf2"],
    ["doc.pdf::p0::l3::8", "doc.pdf::p0::l2::5", "doc.pdf::p0::l1::2", 17, 762, "90055e5eadf2"],
    ["doc.pdf::p0::l1::3", "", "doc.pdf::p0::l1::3", 18, 1908, "55d2caf0350e"],
    ["doc.pdf::p0::l2::6", "doc.pdf::p0::l1::3", "doc.pdf::p0::l1::3", 19, 1526, "36c77a6fe9d3"],
    ["doc.pdf::p0::l3::9", "doc.pdf::p0::l2::6", "doc.pdf::p0::l1::3", 20, 762, "3ad817e9853e"],
    ["doc.pdf::p0::l3::10", "doc.pdf::p0::l2::6", "doc.pdf::p0::l1::3", 21, 762, "eafe6a735b51"],
    ["doc.pdf::p0::l2::7", "doc.pdf::p0::l1::3", "doc.pdf::p0::l1::3", 22, 380, "8c3e62907995"],
    ["doc.pdf::p0::l3::11", "doc.pdf::p0::l2::7", "doc.pdf::p0::l1::3", 23, 380, "8c3e62907995"],
    ["doc.pdf::p1::l1::0", "", "doc.pdf::p1::l1::0", 24, 2385, "aba90de3064f"],
    ["doc.pdf::p1::l2::0", "doc.pdf::p1::l1::0", "doc.pdf::p1::l1::0", 25, 1521, "cb6b4566e8bd"],
    ["doc.pdf::p1::l3::0", "doc.pdf::p1::l2::0", "doc.pdf::p1::l1::0", 26, 753, "216a0bd4fe50"],
    ["doc.pdf::p1::l3::1", "doc.pdf::p1::l2::0", "doc.pdf::p1::l1::0", 27, 763, "e0a3dd882e9c"],
    ["doc.pdf::p1::l3::2", "doc.pdf::p1::l2::0", "doc.pdf::p1::l1::0", 28, 191, "6670b677a879"],
    ["doc.pdf::p1::l2::1", "doc.pdf::p1::l1::0", "doc.pdf::p1::l1::0", 29, 1055, "22465a2b400c"],
    ["doc.pdf::p1::l3::3", "doc.pdf::p1::l2::1", "doc.pdf::p1::l1::0", 30, 767, "a3c60598bccb"],
    ["doc.pdf::p1::l3::4", "doc.pdf::p1::l2::1", "doc.pdf::p1::l1::0", 31, 383, "13758825b5dc"],
    ["doc.pdf::p1::l1::1", "", "doc.pdf::p1::l1::1", 32, 2399, "2a652789dc8e"],
    ["doc.pdf::p1::l2::2", "doc.pdf::p1::l1::1", "doc.pdf::p1::l1::1", 33, 1535, "eb2a4f91b642"],
    ["doc.pdf::p1::l3::5", "doc.pdf::p1::l2::2", "doc.pdf::p1::l1::1", 34, 767, "b9de48172110"],
    ["doc.pdf::p1::l3::6", "doc.pdf::p1::l2::2", "doc.pdf::p1::l1::1", 35, 767, "416cfb75af88"],
    ["doc.pdf::p1::l3::7", "doc.pdf::p1::l2::2", "doc.pdf::p1::l1::1", 36, 191, "952ad443ea34"],
    ["doc.pdf::p1::l2::3", "doc.pdf::p1::l1::1", "doc.pdf::p1::l1::1", 37, 1055, "a02c7be96899"],
    ["doc.pdf::p1::l3::8", "doc.pdf::p1::l2::3", "doc.pdf::p1::l1::1", 38, 767, "48d7d1e15ccd"],
    ["doc.pdf::p1::l3::9", "doc.pdf::p1::l2::3", "doc.pdf::p1::l1::1", 39, 383, "e6e4006b6501"],
    ["doc.pdf::p1::l1::2", "", "doc.pdf::p1::l1::2", 40, 1471, "73a5566b4dac"],
    ["doc.pdf::p1::l2::4", "doc.pdf::p1::l1::2", "doc.pdf::p1::l1::2", 41, 1471, "73a5566b4dac"],
    ["doc.pdf::p1::l3::10", "doc.pdf::p1::l2::4", "doc.pdf::p1::l1::2", 42, 767, "f250fcd9b626"],
    ["doc.pdf::p1::l3::11", "doc.pdf::p1::l2::4", "doc.pdf::p1::l1::2", 43, 799, "feb17add3d38"],
    ["doc.pdf::p3::l1::0", "", "doc.pdf::p3::l1::0", 44, 3, "d2dd69c2d239"],
    ["doc.pdf::p3::l2::0", "doc.pdf::p3::l1::0", "doc.pdf::p3::l1::0", 45, 3, "d2dd69c2d239"],
    ["doc.pdf::p3::l3::0", "doc.pdf::p3::l2::0", "doc.pdf::p3::l1::0", 46, 3, "d2dd69c2d239"],
];

describe('three-level hierarchy (spec §6.11)', () => {
  const chunks = buildHierarchy(sanitizeDocument(doc));

  test('sizes and overlaps are the spec values (base 800 / 100)', () => {
    expect([L1_CHUNK_SIZE, L1_CHUNK_OVERLAP, L2_CHUNK_SIZE, L2_CHUNK_OVERLAP, L3_CHUNK_SIZE, L3_CHUNK_OVERLAP]).toEqual([2400, 400, 1600, 200, 800, 100]);
    expect(CHUNK_SEPARATORS).toEqual(['\n\n', '。', '！', '？', '\n', '，', '、', ' ', '']);
  });

  test('a multi-page document matches the original chunk for chunk (ids, parents, roots, chunk_idx, texts)', () => {
    expect(chunks.map(row)).toEqual(EXPECTED);
  });

  test('depth-first emission: each L2 follows its L1 or a sibling subtree, each L3 follows its L2 or a sibling', () => {
    const seen = new Set<string>();
    for (const chunk of chunks) {
      if (chunk.chunk_level > 1) expect(seen.has(chunk.parent_chunk_id)).toBe(true);
      seen.add(chunk.chunk_id);
    }
    const levels = chunks.slice(0, 6).map((c) => c.chunk_level);
    expect(levels).toEqual([1, 2, 3, 3, 2, 3]);
  });

  test('L1: parent "" and root = itself; L2: parent = root = its L1; L3: parent = its L2, root = that L2\'s L1', () => {
    const byId = new Map(chunks.map((c) => [c.chunk_id, c]));
    for (const c of chunks) {
      if (c.chunk_level === 1) expect([c.parent_chunk_id, c.root_chunk_id]).toEqual(['', c.chunk_id]);
      if (c.chunk_level === 2) expect(c.root_chunk_id).toBe(c.parent_chunk_id);
      if (c.chunk_level === 3) expect(c.root_chunk_id).toBe(byId.get(c.parent_chunk_id)?.parent_chunk_id);
      expect(c.page_number).toBe(byId.get(c.root_chunk_id)?.page_number);
    }
  });

  test('chunk_idx counts every chunk across pages; n counts per page and level, not per parent', () => {
    expect(chunks.map((c) => c.chunk_idx)).toEqual(chunks.map((_, i) => i));
    const page0Leaves = chunks.filter((c) => c.page_number === 0 && c.chunk_level === 3).map((c) => c.chunk_id);
    expect(page0Leaves).toEqual(page0Leaves.map((_, n) => chunkId('doc.pdf', 0, 3, n)));
    expect(chunks.find((c) => c.page_number === 1)?.chunk_id).toBe('doc.pdf::p1::l1::0');
  });

  test('a blank page gives no chunks; every chunk carries the document identity', () => {
    expect(chunks.some((c) => c.page_number === 2)).toBe(false);
    expect(new Set(chunks.map((c) => `${c.filename}|${c.file_path}|${c.file_type}`))).toEqual(new Set(['doc.pdf|doc.pdf|PDF']));
    expect(countLevels(chunks)).toEqual({ l1: 8, l2: 14, l3: 25 });
  });

  test('a short page is one chunk at each level, with the stripped text', () => {
    const small = buildHierarchy(sanitizeDocument({ filename: 'a.md', file_path: 'a.md', file_type: 'Markdown', pages: [{ page_number: 0, text: '\n  你好，世界。 \n' }] }));
    expect(small.map((c) => [c.chunk_id, c.text, c.chunk_idx])).toEqual([
      ['a.md::p0::l1::0', '你好，世界。', 0],
      ['a.md::p0::l2::0', '你好，世界。', 1],
      ['a.md::p0::l3::0', '你好，世界。', 2],
    ]);
  });

  test('DESIGN §4b: chunk ids start with the document id, so two files of one base name get distinct chunks', () => {
    const of = (docId: string) => buildHierarchy(sanitizeDocument({ filename: 'README.md', file_path: docId, file_type: 'Markdown', pages: [{ page_number: 0, text: '同名文件。' }] }));
    const [zod, openai] = [of('node_modules/zod/README.md'), of('node_modules/openai/README.md')];
    expect(zod.map((c) => c.chunk_id)).toEqual(['node_modules/zod/README.md::p0::l1::0', 'node_modules/zod/README.md::p0::l2::0', 'node_modules/zod/README.md::p0::l3::0']);
    expect(zod.every((c) => c.filename === 'README.md')).toBe(true);
    expect(new Set([...zod, ...openai].map((c) => c.chunk_id)).size).toBe(6);
  });

  test('an empty document has no chunks', () => {
    expect(buildHierarchy(sanitizeDocument({ filename: 'e.txt', file_path: '/e.txt', file_type: 'Text', pages: [{ page_number: 0, text: '\u200B \n' }] }))).toEqual([]);
  });
});
