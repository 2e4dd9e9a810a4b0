import { RagError } from '../../core/errors';
import { LEAF_BATCH_SIZE, type IngestHeartbeat } from '../../core/ingest/ingest-io';
import type { Embedder, LeafStore, ParentStore } from '../ports';
import type { PreparedFile } from './prepare-file';

/*
 * The store side of one document (spec §6.11 "Upload"): clear the document's chunks in both stores of its knowledge
 * base, write L1+L2 to the parent store, then embed and insert the L3 leaves in batches. Parents go first, so a leaf
 * a search finds while the document is being written always has its parents for auto-merging.
 *
 * Consistency, per document id: when an attempt ends, either both stores hold exactly this document's chunks, or
 * neither holds any (a failure after the clear removes what was written: the old version is gone, as in the
 * original). Between the clear and the end the document is partly written; a crashed attempt leaves it so until its
 * retry, which either resumes after the leaves already inserted (same bytes, and both stores hold exactly what the
 * last heartbeat recorded) or clears and starts over.
 */

export type StoreDeps = { leafStore: LeafStore; parentStore: ParentStore; embedder: Embedder };

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

async function embedBatch(texts: string[], embedder: Embedder, filename: string): Promise<number[][]> {
  const vectors = await embedder.embedPassages(texts);
  const bad = vectors.length !== texts.length ? `${vectors.length} vectors for ${texts.length} texts` : vectors.find((v) => v.length !== embedder.dim) ? 'a vector of another dimension' : null;
  if (bad) {
    throw new RagError('INVALID_CONFIG', `${filename}: the embedder ${embedder.model} (dim ${embedder.dim}) returned ${bad}; check EMBEDDING_MODEL and EMBEDDING_DIM`);
  }
  return vectors;
}

/** Writes the document's chunks from leaf `from` on (0 = clear and write everything); returns how many leaves it inserted. */
export async function storeFile(prepared: PreparedFile, from: number, deps: StoreDeps, progress: Progress, signal?: AbortSignal): Promise<number> {
  const { docId, filename, leaves } = prepared;
  if (from === 0) {
    await clearDocument(docId, deps);
    progress({ stage: 'cleared', leaves_embedded: 0, leaves_inserted: 0 });
    await deps.parentStore.replaceDocument(docId, prepared.parents);
    progress({ stage: 'parents_written' });
  }
  for (let start = from; start < leaves.length; start += LEAF_BATCH_SIZE) {
    signal?.throwIfAborted(); // cancelled (workflow, shutdown, timeout): stop between batches
    const batch = leaves.slice(start, start + LEAF_BATCH_SIZE);
    progress({ stage: 'embedding', leaves_embedded: start, leaves_inserted: start });
    const vectors = await embedBatch(batch.map((leaf) => leaf.text), deps.embedder, filename);
    progress({ stage: 'embedding', leaves_embedded: start + batch.length, leaves_inserted: start });
    await deps.leafStore.insertLeaves(batch.map((leaf, i) => ({ ...leaf, dense: vectors[i]!, source: prepared.source })));
    progress({ stage: 'embedding', leaves_inserted: start + batch.length });
  }
  progress({ stage: 'inserted', leaves_embedded: leaves.length, leaves_inserted: leaves.length });
  return leaves.length - from;
}
