import { pythonStrip } from '../python-text';
import type { Chunk } from '../schemas/retrieved-chunk';
import { mergeScoreInto } from './score-merge';

/*
 * Auto-merging L3 → L2 → L1 (spec §6.5). The parent fetch is I/O, so a pass is split in two pure halves around it:
 * `qualifyingParentIds` says which parents to fetch, `mergePass` replaces children by the parents that were found.
 */

const parentIdOf = (chunk: Chunk): string => (typeof chunk.parent_chunk_id === 'string' ? pythonStrip(chunk.parent_chunk_id) : '');

function groupSizes(candidates: readonly Chunk[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const candidate of candidates) {
    const parentId = parentIdOf(candidate);
    if (parentId) sizes.set(parentId, (sizes.get(parentId) ?? 0) + 1);
  }
  return sizes;
}

/**
 * Issue 42 §1: the context of a merged parent, when the parent store has none (it keeps none: the context is not a
 * column of spec §6.8's table). A parent's text is its children's, so the context in force at its start is that of
 * its first child: of the children among the candidates, the earliest in the document (lowest chunk_idx). Exact when
 * the first child is among them; otherwise it may name a heading that lies inside the parent's own text. Deriving it
 * keeps the parent store's schema, and parents written before contextual leaves, as they are.
 */
function firstChildContexts(candidates: readonly Chunk[]): Map<string, string> {
  const first = new Map<string, Chunk>();
  for (const candidate of candidates) {
    const parentId = parentIdOf(candidate);
    if (!parentId || typeof candidate.context !== 'string' || candidate.context === '') continue;
    const seen = first.get(parentId);
    if (!seen || (candidate.chunk_idx ?? Infinity) < (seen.chunk_idx ?? Infinity)) first.set(parentId, candidate);
  }
  return new Map([...first].map(([parentId, child]) => [parentId, child.context as string]));
}

/** Parent ids whose group of children among the candidates is at least `threshold` large, in first-seen order. */
export function qualifyingParentIds(candidates: readonly Chunk[], threshold: number): string[] {
  return [...groupSizes(candidates)].filter(([, size]) => size >= threshold).map(([parentId]) => parentId);
}

export type MergePassResult = { chunks: Chunk[]; replaced: number };

/**
 * One merge pass (spec §6.5.1 step 4): the first child of a fetched parent becomes a copy of the parent carrying the
 * child's score; later children fold their scores into it and disappear. Every replaced child counts one.
 */
export function mergePass(
  candidates: readonly Chunk[],
  parentsById: ReadonlyMap<string, Chunk>,
  threshold: number,
): MergePassResult {
  const sizes = groupSizes(candidates);
  const contexts = firstChildContexts(candidates);
  const positionByParent = new Map<string, number>();
  const chunks: Chunk[] = [];
  let replaced = 0;
  for (const candidate of candidates) {
    const parentId = parentIdOf(candidate);
    const parent = parentId && (sizes.get(parentId) ?? 0) >= threshold ? parentsById.get(parentId) : undefined;
    if (!parent) {
      chunks.push(candidate);
      continue;
    }
    const position = positionByParent.get(parentId);
    if (position === undefined) {
      positionByParent.set(parentId, chunks.length);
      const context = parent.context || contexts.get(parentId);
      const merged = { ...parent, ...(context ? { context } : {}), merged_from_children: true, merged_child_count: sizes.get(parentId) ?? 0 };
      chunks.push(mergeScoreInto(merged, candidate));
    } else {
      chunks[position] = mergeScoreInto(chunks[position] as Chunk, candidate);
    }
    replaced += 1;
  }
  return { chunks, replaced };
}

export type AutoMergeMeta = {
  auto_merge_enabled: boolean;
  auto_merge_applied: boolean;
  auto_merge_threshold: number;
  auto_merge_replaced_chunks: number;
  auto_merge_steps: number;
  post_merge_candidate_count: number;
};

/** The merge meta after the two passes (spec §6.5.1, last paragraph). */
export function autoMergeMeta(input: {
  enabled: boolean;
  threshold: number;
  replacedPerPass: readonly number[];
  resultCount: number;
}): AutoMergeMeta {
  const replaced = input.replacedPerPass.reduce((sum, count) => sum + count, 0);
  return {
    auto_merge_enabled: input.enabled,
    auto_merge_applied: replaced > 0,
    auto_merge_threshold: input.threshold,
    auto_merge_replaced_chunks: replaced,
    auto_merge_steps: input.replacedPerPass.filter((count) => count > 0).length,
    post_merge_candidate_count: input.resultCount,
  };
}

/** spec §6.5.1: pass 1 replaces L3 leaves by L2 parents, pass 2 replaces L2 parents by L1 roots. */
export const AUTO_MERGE_PASSES = 2;
