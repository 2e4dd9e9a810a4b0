import { RagError } from '../../core/errors';
import { LEAF_BATCH_SIZE, type IngestHeartbeat, type IngestWait } from '../../core/ingest/ingest-io';
import { chunksFor, indexedText, PLAIN_CHUNKING } from '../../core/ingest/leaf-context';
import type { Embedder, HierarchyChunk, LeafStore, ParentStore } from '../ports';
import { requestSlots } from './request-slots';
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

/** `reuse` (default true): keep the stored version's vector of a leaf whose embedded text and model are unchanged. */
export type StoreOptions = { signal?: AbortSignal; now?: () => number; reuse?: boolean; reuseFrom?: string | undefined };

/** What storeFile wrote: leaves inserted by this call, and how many of them kept the stored version's vector. */
export type Stored = { inserted: number; reused: number };

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

type Insert = (leaves: HierarchyChunk[], vectors: number[][], position: Pick<IngestWait, 'batch' | 'batches'>, start: number) => Promise<void>;

/** Inserts the batches' leaves that have vectors, in order, up to the first leaf without one. */
async function keepWhatCameBack(batches: readonly BatchInFlight[], insert: Insert): Promise<void> {
  for (const batch of batches) {
    const missing = batch.vectors.findIndex((vector) => vector === undefined);
    const got = missing === -1 ? batch.leaves.length : missing;
    if (got > 0) await insert(batch.leaves.slice(0, got), batch.vectors as number[][], batch.position, batch.start);
    if (got < batch.leaves.length) return;
  }
}

/** One leaf batch on its way: its leaves from `start`, the vectors got so far (reused or embedded), and when all are. */
type BatchInFlight = {
  start: number;
  leaves: HierarchyChunk[];
  position: Pick<IngestWait, 'batch' | 'batches'>;
  vectors: Array<number[] | undefined>;
  embedded: Promise<number[][]>;
};

/**
 * Writes the document's chunks from leaf `from` on (0 = clear and write everything). Leaves go in batches of
 * LEAF_BATCH_SIZE, each embedded in requests of the embedder's `batchSize`, at most its `concurrency` requests in
 * flight. The pipeline: the next batches' requests go out while a batch is inserted, so the embedder never waits on
 * Milvus. Before clearing, the stored version's vectors are read: a leaf whose embedded text (its context and text,
 * core/ingest/leaf-context.ts `indexedText`) and embedding model are unchanged keeps its vector and is not embedded
 * again (unless `reuse` is false); a leaf whose heading or title changed is embedded again. The knowledge base's
 * chunking decides what is embedded: a `plain` one (created before issue 42) gets the leaves without context, as
 * before, until it is recreated. Before each wait it reports what it waits
 * on (`wait`, shown by `ragtime ingest`); `now` is the clock.
 */
export async function storeFile(prepared: PreparedFile, from: number, deps: StoreDeps, progress: Progress, options: StoreOptions = {}): Promise<Stored> {
  const { signal, now = Date.now, reuse = true } = options;
  const { docId } = prepared;
  const { embedder } = deps;
  const chunking = (await deps.leafStore.chunking?.()) ?? PLAIN_CHUNKING;
  const leaves = chunksFor(prepared.leaves, chunking);
  const batches = Math.ceil(leaves.length / LEAF_BATCH_SIZE);
  const perRequest = Math.max(1, Math.min(LEAF_BATCH_SIZE, embedder.batchSize ?? LEAF_BATCH_SIZE));
  const concurrency = Math.max(1, embedder.concurrency ?? 1);
  let reusable = new Map<string, number[]>();
  if (from === 0) {
    if (reuse) {
      progress({ wait: { on: 'reading_vectors', target: deps.kb, since: now() } });
      reusable = await deps.leafStore.vectorsOfDocument(docId, embedder.model);
      // A renamed file's old document (issue 46): its vectors serve the same texts under the new id.
      if (options.reuseFrom !== undefined) reusable = new Map([...(await deps.leafStore.vectorsOfDocument(options.reuseFrom, embedder.model)), ...reusable]);
    }
    progress({ wait: { on: 'clearing', target: deps.kb, since: now() } });
    await clearDocument(docId, deps);
    progress({ stage: 'cleared', leaves_embedded: 0, leaves_inserted: 0, wait: { on: 'writing_parents', texts: prepared.parents.length, target: deps.kb, since: now() } });
    await deps.parentStore.replaceDocument(docId, chunksFor(prepared.parents, chunking));
    progress({ stage: 'parents_written', wait: undefined });
  }

  // What the heartbeat's `wait` shows: an insert while one runs, else the oldest embedding request in flight.
  const embeddingWaits = new Map<number, IngestWait>();
  let insertWait: IngestWait | undefined;
  const shownWait = () => insertWait ?? embeddingWaits.values().next().value;
  let ready = from; // leaves with a vector (embedded or reused), counting those inserted before `from`
  let reused = 0;
  let requestId = 0;
  // Stops the requests not yet answered once one has failed: the attempt fails anyway.
  const failed = new AbortController();
  const requestSignal = signal ? AbortSignal.any([signal, failed.signal]) : failed.signal;
  const slot = requestSlots(concurrency);

  const embedInto = (batch: BatchInFlight, indexes: number[], part: number, parts: number) =>
    slot(async () => {
      requestSignal.throwIfAborted();
      const texts = indexes.map((i) => indexedText(batch.leaves[i]!));
      const timeout = embedder.timeoutMsFor?.(texts.length);
      const id = requestId++;
      embeddingWaits.set(id, {
        on: 'embedding',
        ...batch.position,
        ...(parts > 1 ? { part, parts } : {}),
        texts: texts.length,
        target: embedder.endpoint,
        since: now(),
        ...(timeout === undefined ? {} : { timeout_ms: timeout }),
      });
      progress({ wait: shownWait() });
      try {
        const vectors = await embedBatch(texts, embedder, prepared.filename, requestSignal);
        indexes.forEach((leaf, k) => (batch.vectors[leaf] = vectors[k]));
        ready += texts.length;
      } catch (error) {
        failed.abort(error); // the requests queued behind this one are not sent
        throw error;
      } finally {
        embeddingWaits.delete(id);
      }
      if (!failed.signal.aborted) progress({ leaves_embedded: ready, wait: shownWait() });
    });

  // A retry may resume inside a batch (after the requests of it that were embedded): it first completes that batch.
  const schedule = (start: number): BatchInFlight => {
    const end = Math.min(leaves.length, (Math.floor(start / LEAF_BATCH_SIZE) + 1) * LEAF_BATCH_SIZE);
    const batchLeaves = leaves.slice(start, end);
    const vectors = batchLeaves.map((leaf) => reusable.get(indexedText(leaf)));
    const missing = vectors.flatMap((vector, i) => (vector === undefined ? [i] : []));
    reused += batchLeaves.length - missing.length;
    ready += batchLeaves.length - missing.length;
    const batch: BatchInFlight = { start, leaves: batchLeaves, position: { batch: Math.floor(start / LEAF_BATCH_SIZE) + 1, batches }, vectors, embedded: Promise.resolve([]) };
    const parts = Math.ceil(missing.length / perRequest);
    const requests = Array.from({ length: parts }, (_, part) => embedInto(batch, missing.slice(part * perRequest, (part + 1) * perRequest), part + 1, parts));
    // Settled once every request of the batch is (not at the first failure), so that none is still out when the
    // attempt ends; the first failure in leaf order is the batch's (an aborted request carries the failure's reason).
    batch.embedded = Promise.allSettled(requests).then((settled) => {
      const failure = settled.find((result) => result.status === 'rejected');
      if (failure) throw failure.reason;
      return batch.vectors as number[][];
    });
    batch.embedded.catch(() => undefined); // awaited in order below; a batch after a failure is never awaited
    return batch;
  };

  const insert: Insert = async (batch, vectors, position, start) => {
    insertWait = { on: 'inserting', ...position, texts: batch.length, target: deps.kb, since: now() };
    progress({ wait: insertWait });
    try {
      await deps.leafStore.insertLeaves(batch.map((leaf, i) => ({ ...leaf, dense: vectors[i]!, source: prepared.source, embedding_model: embedder.model, meta: prepared.meta })));
    } finally {
      insertWait = undefined;
    }
    progress({ leaves_inserted: start + batch.length, wait: shownWait() });
  };

  // Batches whose requests are queued beyond the one being inserted: enough to keep every request slot busy.
  const ahead = 1 + Math.ceil((concurrency * perRequest) / LEAF_BATCH_SIZE);
  const inFlight: BatchInFlight[] = [];
  let inserting = false;
  progress({ stage: 'embedding', leaves_embedded: from, leaves_inserted: from });
  try {
    for (let next = from; next < leaves.length || inFlight.length > 0; ) {
      while (next < leaves.length && inFlight.length <= ahead) {
        signal?.throwIfAborted(); // cancelled (workflow, shutdown, timeout): stop between batches
        const batch = schedule(next);
        inFlight.push(batch);
        next = batch.start + batch.leaves.length;
      }
      const vectors = await inFlight[0]!.embedded;
      inserting = true;
      await insert(inFlight[0]!.leaves, vectors, inFlight[0]!.position, inFlight[0]!.start);
      inserting = false;
      inFlight.shift();
    }
  } catch (error) {
    failed.abort(error);
    // What came back before the failure, in leaf order up to the first missing vector, is stored before the failure
    // goes up, so the next attempt resumes after it (issue 14 §5). Not after a failed insert: the stores may then
    // not match the heartbeat, and the retry starts over.
    // The requests still out are aborted (or, on an embedder that ignores the signal, answered) first.
    await Promise.allSettled(inFlight.map((batch) => batch.embedded));
    if (!inserting) await keepWhatCameBack(inFlight, insert).catch(() => undefined);
    throw error;
  }
  progress({ stage: 'inserted', leaves_embedded: leaves.length, leaves_inserted: leaves.length, wait: undefined, ...(reused > 0 ? { leaves_reused: reused } : {}) });
  return { inserted: leaves.length - from, reused };
}
