import {
  EMPTY_RERANK_RESULTS,
  parseRerankReply,
  rerankRequestBody,
} from '../../../core/retrieval/rerank-response';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';

/*
 * The rerank contract of spec §6.6.2 steps 4–8 (U05–U08 at the unit level; test/integration/retrieve.test.ts runs
 * them through the real HTTP transport). Candidates are already numbered (rrf_rank = post-merge position).
 */

const candidates: Chunk[] = [
  { chunk_id: 'c1', filename: 'doc.pdf', text: 't1', score: 0.03, rrf_rank: 1 },
  { chunk_id: 'c2', filename: 'doc.pdf', text: 't2', score: 0.02, rrf_rank: 2 },
  { chunk_id: 'c3', filename: 'doc.pdf', text: 't3', score: 0.01, rrf_rank: 3 },
];
const ok = (body: unknown) => ({ status: 200, body: JSON.stringify(body) });

test('U05 request body: model, query, documents in order (missing text → ""), top_n = min(top_k, n), no documents back', () => {
  expect(rerankRequestBody('m', 'q', candidates, 2)).toEqual({
    model: 'm',
    query: 'q',
    documents: ['t1', 't2', 't3'],
    top_n: 2,
    return_documents: false,
  });
  expect(rerankRequestBody('m', 'q', [{ filename: 'x' }], 8)).toMatchObject({ documents: [''], top_n: 1 });
});

test('U05 API order kept, bad index skipped, cut to top_k: [t3 (rrf 3, 0.9), t1 (rrf 1, 0.1)]', () => {
  const reply = ok({
    results: [
      { index: 2, relevance_score: 0.9 },
      { index: 7, relevance_score: 0.8 },
      { index: 0, relevance_score: 0.1 },
    ],
  });
  const outcome = parseRerankReply(reply, candidates, 2);
  expect(outcome).toEqual({
    kind: 'reranked',
    docs: [
      { ...candidates[2], rerank_score: 0.9 },
      { ...candidates[0], rerank_score: 0.1 },
    ],
  });
});

test('U06 HTTP status ≥ 400 → "HTTP {code}: {body}"', () => {
  expect(parseRerankReply({ status: 500, body: 'boom' }, candidates, 2)).toEqual({ kind: 'failed', error: 'HTTP 500: boom' });
  expect(parseRerankReply({ status: 400, body: '' }, candidates, 2)).toEqual({ kind: 'failed', error: 'HTTP 400: ' });
});

test('U07 no usable result → "empty_rerank_results" (empty list, missing list, only bad indices)', () => {
  const failed = { kind: 'failed', error: EMPTY_RERANK_RESULTS };
  expect(EMPTY_RERANK_RESULTS).toBe('empty_rerank_results');
  expect(parseRerankReply(ok({ results: [] }), candidates, 2)).toEqual(failed);
  expect(parseRerankReply(ok({}), candidates, 2)).toEqual(failed);
  expect(parseRerankReply(ok({ results: [{ index: -1 }, { index: 3 }, { index: '1' }, { index: null }] }), candidates, 2)).toEqual(failed);
});

test('U08 a JSON array body (or any non-object JSON) is malformed: it fails the attempt, not just the rerank', () => {
  expect(parseRerankReply(ok([{ index: 0, relevance_score: 1 }]), candidates, 2)).toEqual({
    kind: 'malformed',
    reason: 'rerank reply is a JSON array, not an object',
  });
  for (const body of ['"text"', '42', 'null', 'true']) {
    expect(parseRerankReply({ status: 200, body }, candidates, 2).kind).toBe('malformed');
  }
  expect(parseRerankReply(ok({ results: ['x'] }), candidates, 2).kind).toBe('malformed');
  expect(parseRerankReply(ok({ results: 'abc' }), candidates, 2).kind).toBe('malformed');
  expect(parseRerankReply(ok({ results: { a: 1 } }), candidates, 2).kind).toBe('malformed');
});

test('a body that is not JSON → rerank_error is the parser\'s exception text', () => {
  const outcome = parseRerankReply({ status: 200, body: 'not json' }, candidates, 2);
  expect(outcome.kind).toBe('failed');
  expect(outcome).toMatchInlineSnapshot(`
{
  "error": "Unexpected token 'o', "not json" is not valid JSON",
  "kind": "failed",
}
`);
});

test('results that cannot be iterated (null, a number) → a readable rerank_error (the original\'s TypeError)', () => {
  expect(parseRerankReply(ok({ results: null }), candidates, 2)).toEqual({
    kind: 'failed',
    error: 'rerank reply "results" is null, not a list',
  });
  expect(parseRerankReply(ok({ results: 3 }), candidates, 2)).toEqual({
    kind: 'failed',
    error: 'rerank reply "results" is number, not a list',
  });
  expect(parseRerankReply(ok({ results: '' }), candidates, 2)).toEqual({ kind: 'failed', error: EMPTY_RERANK_RESULTS });
});

test('duplicates are kept; a missing relevance_score leaves no rerank_score; a boolean index is an int (true → 1)', () => {
  const outcome = parseRerankReply(
    ok({ results: [{ index: 1, relevance_score: 0.5 }, { index: 1 }, { index: true, relevance_score: 0.2 }] }),
    candidates,
    8,
  );
  expect(outcome).toEqual({
    kind: 'reranked',
    docs: [{ ...candidates[1], rerank_score: 0.5 }, { ...candidates[1] }, { ...candidates[1], rerank_score: 0.2 }],
  });
});

test('a relevance_score that is not a number → rerank_error (ragtime\'s choice; the original raises later)', () => {
  expect(parseRerankReply(ok({ results: [{ index: 0, relevance_score: 'high' }] }), candidates, 2)).toEqual({
    kind: 'failed',
    error: 'rerank relevance_score is not a number: "high"',
  });
});

test('copies: the candidates are not changed', () => {
  const before = JSON.stringify(candidates);
  parseRerankReply(ok({ results: [{ index: 0, relevance_score: 0.7 }] }), candidates, 2);
  expect(JSON.stringify(candidates)).toBe(before);
});
