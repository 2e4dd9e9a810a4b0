import {
  diagnosticError,
  fusedCandidates,
  legCandidates,
  mergeGroups,
  rerankedCandidates,
  textPreview,
} from '../../../core/retrieval/diagnostics';
import { fuseRrf } from '../../../core/retrieval/rrf';
import { LegCandidate, RetrievalDiagnostics } from '../../../core/schemas/retrieval-diagnostics';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';

/* The bounded retrieval diagnostics (issue 4 §3, seed 003's retrieval trace): ≤ 10 items, 80-char previews. */

const leaf = (n: number, fields: Partial<Omit<Chunk, 'id'>> = {}): Chunk & { id: number } => ({
  id: n,
  chunk_id: `doc.md::p0::l3::${n}`,
  filename: 'doc.md',
  text: `text ${n}`,
  score: 1 - n / 100,
  ...fields,
});

test('text preview: whitespace collapsed, at most 80 UTF-16 units, never a split character, "…" marks a cut', () => {
  expect(textPreview('  a\n\n b\tc ')).toBe('a b c');
  expect(textPreview(undefined)).toBe('');
  const long = textPreview('数'.repeat(200));
  expect(long).toHaveLength(80);
  expect(long.endsWith('…')).toBe(true);
  const astral = textPreview('😀'.repeat(60)); // 2 UTF-16 units each
  expect(astral.length).toBeLessThanOrEqual(80);
  expect(astral).toBe(`${'😀'.repeat(39)}…`);
  expect(diagnosticError(new Error('x'.repeat(1000)))).toHaveLength(300);
});

test('leg candidates: the first 10, ranked 1…, with the leg\'s own score', () => {
  const hits = Array.from({ length: 25 }, (_, i) => leaf(i + 1));
  const candidates = legCandidates(hits);
  expect(candidates).toHaveLength(10);
  expect(candidates[0]).toEqual({ chunk_id: 'doc.md::p0::l3::1', filename: 'doc.md', rank: 1, score: 0.99, text_preview: 'text 1' });
  expect(candidates.every((c) => LegCandidate.safeParse(c).success)).toBe(true);
});

test('fused candidates carry the RRF score and each leg\'s rank (null when absent)', () => {
  const fused = fusedCandidates(fuseRrf([[leaf(1), leaf(2)], [leaf(2), leaf(3)]], 10));
  expect(fused.map((f) => [f.chunk_id.slice(-1), f.rank, f.dense_rank, f.bm25_rank])).toEqual([
    ['2', 1, 2, 1],
    ['1', 2, 1, null],
    ['3', 3, null, 2],
  ]);
  expect(fused[0]?.rrf_score).toBe(1 / 62 + 1 / 61);
});

test('merge groups: fetched parents with ≥ threshold children, children in candidate order, level of the parent', () => {
  const parents = new Map<string, Chunk>([
    ['L2a', { chunk_id: 'L2a', chunk_level: 2 }],
    ['L2c', { chunk_id: 'L2c', chunk_level: 2 }],
  ]);
  const candidates = [
    leaf(1, { parent_chunk_id: 'L2a' }),
    leaf(2, { parent_chunk_id: 'L2b' }), // parent not in the store
    leaf(3, { parent_chunk_id: ' L2a ' }),
    leaf(4, { parent_chunk_id: 'L2b' }),
    leaf(5, { parent_chunk_id: 'L2c' }), // single child: below the threshold
  ];
  expect(mergeGroups(candidates, parents, 2)).toEqual([
    { parent_chunk_id: 'L2a', level: 2, child_count: 2, child_chunk_ids: ['doc.md::p0::l3::1', 'doc.md::p0::l3::3'] },
  ]);
});

test('reranked candidates show the rank before (rrf_rank) and after', () => {
  const reranked = rerankedCandidates([leaf(3, { rrf_rank: 3, rerank_score: 0.9 }), leaf(1, { rrf_rank: 1, rerank_score: 0.1 })]);
  expect(reranked.map((r) => [r.before_rank, r.rank, r.rerank_score])).toEqual([[3, 1, 0.9], [1, 2, 0.1]]);
});

test('the schema bounds every list to 10 items and previews to 80 characters', () => {
  const base = {
    embedding_error: null,
    legs: { dense: [], bm25: [], dense_fallback: null },
    fused: [],
    merge_groups: [],
    reranked: [],
    attempts: [],
    timing_ms: { embed: 1, dense: null, bm25: null, fuse: null, merge: null, rerank: null, total: 2 },
  };
  expect(RetrievalDiagnostics.safeParse(base).success).toBe(true);
  const eleven = Array.from({ length: 11 }, (_, i) => ({ chunk_id: '', filename: '', rank: i + 1, score: 0, text_preview: '' }));
  expect(RetrievalDiagnostics.safeParse({ ...base, legs: { ...base.legs, dense: eleven } }).success).toBe(false);
  const longPreview = [{ chunk_id: '', filename: '', rank: 1, score: 0, text_preview: 'x'.repeat(81) }];
  expect(RetrievalDiagnostics.safeParse({ ...base, legs: { ...base.legs, bm25: longPreview } }).success).toBe(false);
});
