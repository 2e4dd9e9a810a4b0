import type { Chunk } from '../schemas/retrieved-chunk';

type Scored = Pick<Chunk, 'score' | 'rerank_score'>;

const isScore = (value: unknown): value is number => typeof value === 'number';

/** The effective score of a chunk: its rerank score when it has one, else its recall score (spec §6.4 step 4). */
export function effectiveScore(chunk: Scored): number | undefined {
  if (isScore(chunk.rerank_score)) return chunk.rerank_score;
  if (isScore(chunk.score)) return chunk.score;
  return undefined;
}

/**
 * Folds `source`'s score into `target` (spec §6.5.2), used by auto-merge and by synthesis dedupe. If either side has
 * a rerank score, the target's rerank score becomes the max (mixed scales included, spec §10.5); otherwise its
 * recall score does. Returns a new chunk; the inputs are not changed.
 */
export function mergeScoreInto<T extends Scored>(target: T, source: Scored): T {
  const incoming = effectiveScore(source);
  if (incoming === undefined) return target;
  if (isScore(source.rerank_score) || isScore(target.rerank_score)) {
    const current = target.rerank_score;
    return { ...target, rerank_score: isScore(current) ? Math.max(current, incoming) : incoming };
  }
  const current = target.score;
  return { ...target, score: isScore(current) ? Math.max(current, incoming) : incoming };
}
