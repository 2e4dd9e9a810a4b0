import { pythonStrip } from '../python-text';
import {
  DIAGNOSTICS_ERROR_CHARS,
  DIAGNOSTICS_MAX_ITEMS,
  DIAGNOSTICS_PREVIEW_CHARS,
  type FusedCandidate,
  type LegCandidate,
  type MergeGroup,
  type RerankedCandidate,
} from '../schemas/retrieval-diagnostics';
import type { Chunk } from '../schemas/retrieved-chunk';
import type { FusedHit } from './rrf';

/* Pure builders of the bounded retrieval diagnostics (core/schemas/retrieval-diagnostics.ts). */

/** Cuts `text` to at most `max` UTF-16 units without splitting a character, marking a cut with "…". */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = '';
  for (const char of text) {
    if (kept.length + char.length > max - 1) break;
    kept += char;
  }
  return `${kept}…`;
}

/** A one-line preview of chunk text: whitespace runs collapsed, at most 80 characters. */
export function textPreview(text: unknown): string {
  return typeof text === 'string' ? cut(text.replace(/\s+/g, ' ').trim(), DIAGNOSTICS_PREVIEW_CHARS) : '';
}

/**
 * The text of a thrown value, as Python's `str(exc)`: an error's message (no class name), else `String(value)`.
 * Duck-typed: errors raised inside Node (fetch, sockets) may come from another realm, where `instanceof Error` fails.
 */
export function exceptionText(error: unknown): string {
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return String(error);
}

/** An error text bounded for the diagnostics (the trace's rerank_error keeps the full text). */
export function diagnosticError(error: unknown): string {
  return cut(exceptionText(error), DIAGNOSTICS_ERROR_CHARS);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const score = (value: unknown): number | null => (typeof value === 'number' ? value : null);
const top = <T>(items: readonly T[]): T[] => items.slice(0, DIAGNOSTICS_MAX_ITEMS);

/** The first 10 hits of a leg, ranked 1… in the store's order. */
export function legCandidates(hits: readonly Chunk[]): LegCandidate[] {
  return top(hits).map((hit, index) => ({
    chunk_id: text(hit.chunk_id),
    filename: text(hit.filename),
    rank: index + 1,
    score: score(hit.score),
    text_preview: textPreview(hit.text),
  }));
}

/** The first 10 fused hits; leg ranks in the fusion's leg order [dense, bm25]. */
export function fusedCandidates(fused: ReadonlyArray<FusedHit<Chunk>>): FusedCandidate[] {
  return top(fused).map(({ hit, rrfScore, legRanks }, index) => ({
    chunk_id: text(hit.chunk_id),
    filename: text(hit.filename),
    rank: index + 1,
    rrf_score: rrfScore,
    dense_rank: legRanks[0] ?? null,
    bm25_rank: legRanks[1] ?? null,
    text_preview: textPreview(hit.text),
  }));
}

/**
 * The groups one merge pass folds (spec §6.5.1 steps 1–4): each fetched parent whose children among `candidates`
 * number at least `threshold`, with those children's ids in candidate order. Call it with the pass's input.
 */
export function mergeGroups(
  candidates: readonly Chunk[],
  parentsById: ReadonlyMap<string, Chunk>,
  threshold: number,
): MergeGroup[] {
  const children = new Map<string, string[]>();
  for (const candidate of candidates) {
    const parentId = pythonStrip(text(candidate.parent_chunk_id));
    if (parentId && parentsById.has(parentId)) {
      children.set(parentId, [...(children.get(parentId) ?? []), text(candidate.chunk_id)]);
    }
  }
  return [...children]
    .filter(([, ids]) => ids.length >= threshold)
    .map(([parentId, ids]) => ({
      parent_chunk_id: parentId,
      level: score(parentsById.get(parentId)?.chunk_level) ?? 0,
      child_count: ids.length,
      child_chunk_ids: top(ids),
    }));
}

/** The reranker's order (first 10), each with its position before rerank (rrf_rank) and after. */
export function rerankedCandidates(docs: readonly Chunk[]): RerankedCandidate[] {
  return top(docs).map((doc, index) => ({
    chunk_id: text(doc.chunk_id),
    filename: text(doc.filename),
    rank: index + 1,
    before_rank: score(doc.rrf_rank),
    rerank_score: score(doc.rerank_score),
    score: score(doc.score),
    text_preview: textPreview(doc.text),
  }));
}
