/*
 * Reciprocal Rank Fusion of separately searched legs (spec §6.3.1, DESIGN §4). SuperMew let Milvus fuse its dense
 * and BM25 sub-requests with the RRF ranker; ragtime searches each leg on its own (limit 2 × candidate_k) and fuses
 * here, so the trace can show every leg's candidates. The result is the one Milvus' ranker returns:
 *
 * - score(hit) = Σ over the legs that returned it of 1 / (k + rank), rank 1-based, k = 60, summed leg by leg in
 *   request order (dense, then BM25) in double precision, as Milvus Lite 3.2 does. (Milvus 2.4–2.6 servers sum in
 *   float32, where two close but different sums can round to one value and tie; that order can differ here.)
 * - order: score descending; **equal scores by ascending primary key** (Milvus Lite 3.2 sorts with the pk as tie
 *   column, Milvus 2.4–2.6 compare pks in their rerank sort). Int64 pks compare as integers even when they arrive
 *   as strings (the Node SDK returns int64 as strings); other pks compare as strings by UTF-16 code units (Milvus
 *   compares bytes: the two orders differ only for characters outside the Basic Multilingual Plane).
 * - the first leg that returned a pk supplies its payload (Milvus Lite keeps the first seen entity).
 * - final limit: the first `limit` hits of that order.
 *
 * Ties are common: two hits that each appear in one leg only, at the same rank, score exactly the same.
 */

// spec §6.3.1: the Milvus RRF ranker's constant, no weights.
export const RRF_K = 60;

export type PrimaryKey = string | number;

/** A fused hit: the first leg's payload, its RRF score and its 1-based rank in every leg (null where absent). */
export type FusedHit<T> = { hit: T; rrfScore: number; legRanks: Array<number | null> };

const INTEGER_KEY = /^-?\d+$/;

/** Milvus' primary-key order: integers numerically (also when given as strings), anything else as strings. */
export function comparePrimaryKeys(a: PrimaryKey, b: PrimaryKey): number {
  const left = String(a);
  const right = String(b);
  if (INTEGER_KEY.test(left) && INTEGER_KEY.test(right)) {
    const x = BigInt(left);
    const y = BigInt(right);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Fuses ranked legs (each best first) into one list of at most `limit` hits, best first (see the file comment for
 * the exact rule). A pk returned twice by one leg counts twice, as in Milvus Lite.
 */
export function fuseRrf<T extends { id: PrimaryKey }>(
  legs: ReadonlyArray<readonly T[]>,
  limit: number,
  k: number = RRF_K,
): Array<FusedHit<T>> {
  const byKey = new Map<string, FusedHit<T>>();
  legs.forEach((leg, legIndex) => {
    leg.forEach((hit, position) => {
      const key = String(hit.id);
      let fused = byKey.get(key);
      if (fused === undefined) {
        fused = { hit, rrfScore: 0, legRanks: legs.map(() => null) };
        byKey.set(key, fused);
      }
      const rank = position + 1;
      fused.rrfScore += 1 / (k + rank);
      fused.legRanks[legIndex] ??= rank;
    });
  });
  const ordered = [...byKey.values()].sort(
    (a, b) => b.rrfScore - a.rrfScore || comparePrimaryKeys(a.hit.id, b.hit.id),
  );
  return ordered.slice(0, Math.max(0, limit));
}
