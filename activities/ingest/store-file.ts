import { RagError } from '../../core/errors';
import { LEAF_BATCH_SIZE, type IngestHeartbeat, type IngestWait } from '../../core/ingest/ingest-io';
import type { Embedder, HierarchyChunk, LeafStore, ParentStore } from '../ports';
import type { PreparedFile } from './prepare-file';

/*
 * The store side of one document (spec §6.11 "Upload"): clear the document's chunks in both stores of its knowledge
 * base, write L1+L2 to the parent store, then embed and insert the L3 leaves in batches. Parents go first, so a leaf
 * a search finds while the document is being written always has its parents for auto-merging.
 *
 * Consistency, per document id: when ingestFile ends (its last attempt), either both stores hold exactly this
 * document's chunks, or neither holds any (a failure after the clear removes what was written: the old version is
 * gone, as in the original). Between the clear and the end the document is partly written; an attempt that crashed,
 * or failed with a retry to come (issue 14 §5: an embedding timeout), leaves it so until that retry, which either
 * resumes after the leaves already inserted (same bytes, and both stores hold exactly what the last heartbeat
 * recorded), so that no batch is embedded twice, or clears and starts over.
 */

/** `kb`: the knowledge base written, named in progress messages. */
export type StoreDeps = { leafStore: LeafStore; parentStore: ParentStore; embedder: Embedder; kb?: string };

export type Progress = (update: Partial<IngestHeartbeat>) => void;

/** Where a retried attempt can pick up, checked against both stores; 0 means start over. */
export async function resumePoint(prepared: PreparedFile, previous: IngestHeartbeat | null, deps: StoreDeps): Promise<number> {
  if (!previous || previous.fingerprint !== prepared.fingerprint) return 0;
  if (previous.l1 !== prepared.l1 || previous.l2 !== prepared.l2 || previous.l3 !== prepared.l3) return 0;
  if (previous.stage !== 'parents_written' && previous.stage !== 'embedding' && previous.stage !== 'inserted') return 0;
  const [parents, leaves] = await Promise.all([deps.parentStore.countByDocument(prepared.docId), deps.leafStore.countByDocument(prepared.docId)]);
  if (parents !== prepared.l1 + prepared.l2 || leaves !== previous.leaves_inserted) return 0;
  return previous.leaves_inserted;
}

/**
 * Removes every chunk of a document from both stores: the leaves first, in one delete, so that retrieval (which
 * finds a document only through its leaves) stops seeing it at once; then the parents.
 */
export async function clearDocument(docId: string, deps: Pick<StoreDeps, 'leafStore' | 'parentStore'>): Promise<void> {
  await deps.leafStore.deleteByDocument(docId);
  await deps.parentStore.deleteDocument(docId);
}

async function embedBatch(texts: string[], embedder: Embedder, filename: string, signal?: AbortSignal): Promise<number[][]> {
  const vectors = await embedder.embedPassages(texts, signal ? { signal } : undefined);
  const bad = vectors.length !== texts.length ? `${vectors.length} vectors for ${texts.length} texts` : vectors.find((v) => v.length !== embedder.dim) ? 'a vector of another dimension' : null;
  if (bad) {
    throw new RagError('INVALID_CONFIG', `${filename}: the embedder ${embedder.model} (dim ${embedder.dim}) returned ${bad}; check EMBEDDING_MODEL and EMBEDDING_DIM`);
  }
  return vectors;
}

/**
 * Writes the document's chunks from leaf `from` on (0 = clear and write everything); returns how many leaves it
 * inserted. Leaves go in batches of LEAF_BATCH_SIZE, each embedded in requests of the embedder's `batchSize`.
 * Before each wait it reports what it waits on (`wait`, shown by `ragtime ingest`); `now` is the clock.
 */
export async function storeFile(prepared: PreparedFile, from: number, deps: StoreDeps, progress: Progress, signal?: AbortSignal, now: () => number = Date.now): Promise<number> {
  const { docId, leaves } = prepared;
  const batches = Math.ceil(leaves.length / LEAF_BATCH_SIZE);
  const perRequest = Math.max(1, Math.min(LEAF_BATCH_SIZE, deps.embedder.batchSize ?? LEAF_BATCH_SIZE));
  if (from === 0) {
    progress({ wait: { on: 'clearing', target: deps.kb, since: now() } });
    await clearDocument(docId, deps);
    progress({ stage: 'cleared', leaves_embedded: 0, leaves_inserted: 0, wait: { on: 'writing_parents', texts: prepared.parents.length, target: deps.kb, since: now() } });
    await deps.parentStore.replaceDocument(docId, prepared.parents);
    progress({ stage: 'parents_written', wait: undefined });
  }
  const insert = async (batch: HierarchyChunk[], vectors: number[][], position: Pick<IngestWait, 'batch' | 'batches'>, start: number) => {
    progress({ wait: { on: 'inserting', ...position, texts: batch.length, target: deps.kb, since: now() } });
    await deps.leafStore.insertLeaves(batch.map((leaf, i) => ({ ...leaf, dense: vectors[i]!, source: prepared.source })));
    progress({ leaves_inserted: start + batch.length, wait: undefined });
  };
  // A retry may resume inside a batch (after the requests of it that were embedded): it first completes that batch.
  for (let start = from; start < leaves.length; ) {
    signal?.throwIfAborted(); // cancelled (workflow, shutdown, timeout): stop between batches
    const end = Math.min(leaves.length, (Math.floor(start / LEAF_BATCH_SIZE) + 1) * LEAF_BATCH_SIZE);
    const batch = leaves.slice(start, end);
    const position = { batch: Math.floor(start / LEAF_BATCH_SIZE) + 1, batches };
    const parts = Math.ceil(batch.length / perRequest);
    const vectors: number[][] = [];
    progress({ stage: 'embedding', leaves_embedded: start, leaves_inserted: start });
    try {
      for (let part = 0; part < parts; part++) {
        const texts = batch.slice(part * perRequest, (part + 1) * perRequest).map((leaf) => leaf.text);
        const timeout = deps.embedder.timeoutMsFor?.(texts.length);
        progress({
          wait: { on: 'embedding', ...position, ...(parts > 1 ? { part: part + 1, parts } : {}), texts: texts.length, target: deps.embedder.endpoint, since: now(), ...(timeout === undefined ? {} : { timeout_ms: timeout }) },
        });
        vectors.push(...(await embedBatch(texts, deps.embedder, prepared.filename, signal)));
        progress({ leaves_embedded: start + vectors.length });
      }
    } catch (error) {
      // What this batch had embedded is stored before the failure goes up, so the next attempt resumes after it
      // (issue 14 §5). Should that insert fail too, the stores no longer match the heartbeat and the retry starts over.
      if (vectors.length > 0) await insert(batch.slice(0, vectors.length), vectors, position, start).catch(() => undefined);
      throw error;
    }
    await insert(batch, vectors, position, start);
    start = end;
  }
  progress({ stage: 'inserted', leaves_embedded: leaves.length, leaves_inserted: leaves.length, wait: undefined });
  return leaves.length - from;
}
