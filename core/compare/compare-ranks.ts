import type { RetrievalDiagnostics } from '../schemas/retrieval-diagnostics';
import type { LegMovement, RankLeg, RankMove } from '../schemas/run-comparison';
import type { RunDetail, RunRetrieval } from '../schemas/run-detail';
import { byPosition, roleOf, unionKeys } from './positions';

type Ranked = { chunk_id: string; filename: string; rank: number };

/** Each leg's ranked candidates, as the diagnostics carry them (empty for a leg not searched). */
function legsOf(diagnostics: RetrievalDiagnostics | null | undefined): Record<RankLeg, Ranked[]> {
  return {
    dense: diagnostics?.legs.dense ?? [],
    bm25: diagnostics?.legs.bm25 ?? [],
    dense_fallback: diagnostics?.legs.dense_fallback ?? [],
    fused: diagnostics?.fused ?? [],
    reranked: diagnostics?.reranked ?? [],
  };
}

const LEGS: RankLeg[] = ['dense', 'bm25', 'dense_fallback', 'fused', 'reranked'];

function moves(a: Ranked[], b: Ranked[]): RankMove[] {
  const left = new Map(a.map((hit) => [hit.chunk_id, hit]));
  const right = new Map(b.map((hit) => [hit.chunk_id, hit]));
  return unionKeys(left, right).flatMap((chunkId) => {
    const [x, y] = [left.get(chunkId), right.get(chunkId)];
    if (x?.rank === y?.rank) return [];
    const rankA = x?.rank ?? null;
    const rankB = y?.rank ?? null;
    return [{ chunk_id: chunkId, filename: x?.filename ?? y?.filename ?? '', rankA, rankB, delta: rankA !== null && rankB !== null ? rankB - rankA : null }];
  });
}

/** Rank movements per leg, for each pair of retrievals (same workflow role, purpose and order). */
export function compareRanks(a: RunDetail, b: RunDetail): LegMovement[] {
  const keyOf = (detail: RunDetail) => (retrieval: RunRetrieval) => `${roleOf(detail, retrieval.workflowId)}:${retrieval.purpose}`;
  const left = byPosition(a.retrievals, keyOf(a));
  const right = byPosition(b.retrievals, keyOf(b));
  return unionKeys(left, right).flatMap((retrieval) => {
    const [x, y] = [legsOf(left.get(retrieval)?.diagnostics), legsOf(right.get(retrieval)?.diagnostics)];
    return LEGS.flatMap((leg) => {
      const changed = moves(x[leg], y[leg]);
      return changed.length > 0 ? [{ retrieval, leg, moves: changed }] : [];
    });
  });
}
