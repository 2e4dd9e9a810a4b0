import { comparePrimaryKeys, fuseRrf, RRF_K } from '../../../core/retrieval/rrf';

/*
 * RRF fusion in code (spec §6.3.1, DESIGN §4): score = Σ 1/(60 + rank), order by score, ties by ascending primary
 * key (Milvus Lite 3.2's sort with the pk as tie column; Milvus 2.4–2.6 compare pks the same way), final limit.
 * test/integration/rrf-milvus.test.ts checks the same rule against Milvus Lite's own hybrid search.
 */

type Hit = { id: string | number; name: string };
const hit = (id: string | number, name = String(id)): Hit => ({ id, name });

test('k is 60 and a hit in both legs at rank 1 scores 2/61 (the spec\'s maximum ≈ 0.0328)', () => {
  expect(RRF_K).toBe(60);
  const [top] = fuseRrf([[hit(1)], [hit(1)]], 10);
  expect(top?.rrfScore).toBe(1 / 61 + 1 / 61);
  expect(top?.rrfScore).toBeCloseTo(0.0328, 4);
});

test('scores sum 1/(60+rank) over the legs that returned the hit; leg ranks are 1-based, null when absent', () => {
  const dense = [hit(10), hit(20), hit(30)];
  const bm25 = [hit(30), hit(40)];
  const fused = fuseRrf([dense, bm25], 10);
  expect(fused.map((f) => [f.hit.id, f.rrfScore, f.legRanks])).toEqual([
    [30, 1 / 63 + 1 / 61, [3, 1]],
    [10, 1 / 61, [1, null]],
    [20, 1 / 62, [2, null]],
    [40, 1 / 62, [null, 2]],
  ]);
});

test('equal scores are ordered by ascending primary key, not by leg or position', () => {
  // 7 is rank 1 of the BM25 leg only, 9 rank 1 of the dense leg only: both 1/61. Milvus puts the smaller pk first.
  const fused = fuseRrf([[hit(9)], [hit(7)]], 10);
  expect(fused.map((f) => f.hit.id)).toEqual([7, 9]);
  // Mirror-image rank pairs tie exactly too: (2, 5) and (5, 2).
  const mirrored = fuseRrf(
    [
      [hit(1), hit(80), hit(2), hit(3), hit(50)],
      [hit(4), hit(50), hit(5), hit(6), hit(80)],
    ],
    10,
  );
  expect(mirrored.find((f) => f.hit.id === 80)?.rrfScore).toBe(mirrored.find((f) => f.hit.id === 50)?.rrfScore);
  expect(mirrored.map((f) => f.hit.id)).toEqual([50, 80, 1, 4, 2, 5, 3, 6]);
});

test('int64 primary keys given as strings (the Node SDK\'s form) compare as integers', () => {
  const fused = fuseRrf([['9', '100'].map((id) => hit(id))], 10).map((f) => f.hit.id);
  expect(fused).toEqual(['9', '100']);
  const tie = fuseRrf([[hit('100')], [hit('9')]], 10).map((f) => f.hit.id);
  expect(tie).toEqual(['9', '100']);
  expect(comparePrimaryKeys('460000000000000000001', '460000000000000000002')).toBe(-1); // beyond 2^53
  expect(comparePrimaryKeys(12, '12')).toBe(0);
  expect(comparePrimaryKeys('b', 'a')).toBe(1); // VarChar pks compare as strings
});

test('the first leg that returned a hit supplies its payload; the same pk as number or string is one hit', () => {
  const fused = fuseRrf([[hit(5, 'from dense')], [hit('5', 'from bm25')]], 10);
  expect(fused).toHaveLength(1);
  expect(fused[0]?.hit.name).toBe('from dense');
});

test('the final limit keeps the best hits; limit 0 or empty legs give nothing', () => {
  const legs = [[hit(1), hit(2), hit(3)], [hit(4), hit(5)]];
  expect(fuseRrf(legs, 3).map((f) => f.hit.id)).toEqual([1, 4, 2]);
  expect(fuseRrf(legs, 0)).toEqual([]);
  expect(fuseRrf([[], []], 5)).toEqual([]);
});

test('a pk returned twice by one leg counts twice (as Milvus Lite sums it)', () => {
  const [top] = fuseRrf([[hit(1), hit(1)], []], 5);
  expect(top?.rrfScore).toBe(1 / 61 + 1 / 62);
  expect(top?.legRanks).toEqual([1, null]);
});
