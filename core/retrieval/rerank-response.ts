import type { Chunk } from '../schemas/retrieved-chunk';

/*
 * The Jina/Cohere-style rerank contract of spec §6.6.2: the request body (step 4) and the reading of the reply
 * (steps 5–8). Sending it is I/O and belongs to the RerankTransport adapter; what the reply means is decided here.
 */

// spec §6.6.2 step 7: the trace text when the reranker answers with no usable result.
export const EMPTY_RERANK_RESULTS = 'empty_rerank_results';

export type RerankRequestBody = {
  model: string;
  query: string;
  documents: string[];
  top_n: number;
  return_documents: false;
};

/** spec §6.6.2 step 4: the candidates' texts in order (missing text → ""), top_n = min(top_k, #candidates). */
export function rerankRequestBody(model: string, query: string, candidates: readonly Chunk[], topK: number): RerankRequestBody {
  return {
    model,
    query,
    documents: candidates.map((candidate) => (typeof candidate.text === 'string' ? candidate.text : '')),
    top_n: Math.min(topK, candidates.length),
    return_documents: false,
  };
}

/**
 * What a rerank reply means for the retrieval:
 * - `reranked`: the candidates in the reranker's order with `rerank_score`, cut to top_k (step 7);
 * - `failed`: `error` becomes `rerank_error` and the caller falls back to the score sort (steps 5, 7, 8);
 * - `malformed`: valid JSON of the wrong shape (e.g. a JSON array body). The original's rerank error handling
 *   does not catch this (an AttributeError), so the whole post-processing fails and the retrieval falls back to
 *   dense recall (spec §6.1 step 4, scenario U08). The caller must treat it as an error of the attempt.
 */
export type RerankReplyOutcome =
  | { kind: 'reranked'; docs: Chunk[] }
  | { kind: 'failed'; error: string }
  | { kind: 'malformed'; reason: string };

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const jsonType = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * The reply's `results` as Python iterates `data.get("results", [])`: missing → []; a list as is; null, a number or
 * a boolean cannot be iterated (TypeError, caught → `failed`); a non-empty string or object iterates characters or
 * keys, which have no `.get` (AttributeError, not caught → `malformed`); an empty one iterates nothing.
 */
function resultItems(reply: JsonObject): unknown[] | RerankReplyOutcome {
  if (!('results' in reply)) return [];
  const results = reply.results;
  if (Array.isArray(results)) return results;
  if (typeof results === 'string' || isObject(results)) {
    const empty = typeof results === 'string' ? results.length === 0 : Object.keys(results).length === 0;
    return empty ? [] : { kind: 'malformed', reason: `rerank reply "results" is a ${jsonType(results)}, not a list` };
  }
  return { kind: 'failed', error: `rerank reply "results" is ${jsonType(results)}, not a list` };
}

/**
 * A result item's `index` as Python's `isinstance(index, int)` reads it: integers, and booleans (a bool is an int in
 * Python: true → 1). JSON `2.0` parses to the same JS number as `2` and so counts as 2 here (the original skips it).
 */
function itemIndex(index: unknown): number | null {
  if (typeof index === 'boolean') return index ? 1 : 0;
  return typeof index === 'number' && Number.isInteger(index) ? index : null;
}

/**
 * Reads a rerank reply (spec §6.6.2 steps 5–8): status ≥ 400 → "HTTP {code}: {body}"; a body that is not JSON →
 * the parser's error text; a JSON value that is not an object → `malformed`; each result item with an in-range
 * integer `index` → a copy of that candidate carrying `relevance_score` as `rerank_score` (items with bad indices
 * skipped, API order kept, duplicates kept); none → "empty_rerank_results".
 *
 * ragtime's choices where the original would raise (documented in the report of this port): a result item that is
 * not an object → `malformed` (AttributeError in the original); a `relevance_score` that is present but not a number
 * → `failed` with a readable text (the original either raises in `float()` or later at the threshold).
 */
export function parseRerankReply(
  reply: { status: number; body: string },
  candidates: readonly Chunk[],
  topK: number,
): RerankReplyOutcome {
  if (reply.status >= 400) return { kind: 'failed', error: `HTTP ${reply.status}: ${reply.body}` };
  let data: unknown;
  try {
    data = JSON.parse(reply.body);
  } catch (error) {
    return { kind: 'failed', error: error instanceof Error ? error.message : String(error) };
  }
  if (!isObject(data)) return { kind: 'malformed', reason: `rerank reply is a JSON ${jsonType(data)}, not an object` };
  const items = resultItems(data);
  if (!Array.isArray(items)) return items;

  const reranked: Chunk[] = [];
  for (const item of items) {
    if (!isObject(item)) return { kind: 'malformed', reason: `rerank result item is a ${jsonType(item)}, not an object` };
    const index = itemIndex(item.index);
    const candidate = index === null ? undefined : candidates[index];
    if (index === null || index < 0 || candidate === undefined) continue;
    const score = item.relevance_score;
    if (score === undefined || score === null) {
      reranked.push({ ...candidate });
    } else if (typeof score === 'number' && Number.isFinite(score)) {
      reranked.push({ ...candidate, rerank_score: score });
    } else {
      return { kind: 'failed', error: `rerank relevance_score is not a number: ${JSON.stringify(score)}` };
    }
  }
  if (reranked.length === 0) return { kind: 'failed', error: EMPTY_RERANK_RESULTS };
  return { kind: 'reranked', docs: reranked.slice(0, Math.max(0, topK)) };
}
