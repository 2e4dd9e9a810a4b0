import { ConsistencyLevelEnum, MetricType, RRFRanker, type HybridSearchSingleReq } from '@zilliz/milvus2-sdk-node';
import { RagError } from '../../core/errors';
import { type ChunkingVersion, PLAIN_CHUNKING } from '../../core/ingest/leaf-context';
import type { LeafHit, LeafSearch, LeafStore, StoredLeaf } from '../ports';
import { type MilvusConnection, milvusCall, newMilvusClient, quoteForFilter, serialized } from './milvus/calls';
import { type CollectionTarget, ensureCollection, loadIfNeeded, NOT_LOADED, ONLY_ZERO_DROP_RATIO, readChunking } from './milvus/collection';
import { documentFilter, leafFilter } from './milvus/filter-expression';
import { rowsOf, toLeafHit, toLeafRow } from './milvus/rows';
import { DENSE_SEARCH_EF, FIELD, OUTPUT_FIELDS, SPEC_DROP_RATIO } from './milvus/schema';

/*
 * The leaf (L3) store on Milvus (spec §6.3, §6.10), the same code for Milvus Lite 3.2.2, Milvus and Zilliz Cloud.
 * One client per store, kept open: SuperMew opened a client per operation (spec §6.3), which costs a connection
 * handshake per search. What Milvus Lite 3.2.2 does differently, and how the store copes (verified):
 * - BM25 scores come back negative, best first (e.g. -2.90 before -1.02); Milvus returns positive ones. searchBm25
 *   keeps Milvus' order and reports |score|, a positive relevance, higher is better, on both.
 * - drop_ratio_build / drop_ratio_search other than 0 are refused; the store uses the spec's 0.2 and switches to 0
 *   when the server says only 0 is supported.
 * - A collection is not loaded after a restart: reads that fail on an unloaded collection load it and retry once.
 * - Writes are serialized per collection (one writer per collection in Lite's engine).
 * The collection's chunking (issue 42 §1) decides what a row holds: `chunking()` reads it from Milvus each time it is
 * asked (ingestion asks once per file, a retrieval once), and inserts use the last answer, so a collection dropped
 * and created again by another process is seen at the next file.
 */

/** `vectorPageSize`: rows per page when a document's vectors are read (tests page with a few). */
export type MilvusLeafStoreOptions = MilvusConnection & { collection: string; dim: number; vectorPageSize?: number };

export type HybridSearch = LeafSearch & {
  /** Limit of each ANN sub-request; default 2 × limit (spec §6.3.1). */
  legLimit?: number;
};

export type MilvusLeafStore = LeafStore & {
  readonly collection: string;
  /** The collection's chunking, read from Milvus (issue 42 §1). */
  chunking(): Promise<ChunkingVersion>;
  /**
   * SuperMew's hybrid recall as Milvus runs it (spec §6.3.1): the dense and BM25 sub-requests fused by Milvus' RRF
   * ranker (k = 60), score = the fused score. Not part of the port: ragtime fuses the two legs in code (DESIGN §4),
   * and this exists so tests can prove both give the same result.
   */
  hybridSearchMilvusRrf(vector: number[], text: string, search: HybridSearch): Promise<LeafHit[]>;
  /** Drops the collection (tests, resets). */
  dropCollection(): Promise<void>;
};

const RRF_K = 60; // spec §6.3.1
const INSERT_BATCH = 50; // spec §6.10
// A document's vectors are read in pages of this many rows (at 384 dimensions, ~6 MB of JSON a page).
const VECTOR_PAGE = 4_096;

// HNSW needs ef >= the number of hits asked for; spec §6.3.1's ef 64 holds up to a limit of 64.
const efFor = (limit: number) => Math.max(DENSE_SEARCH_EF, limit);

export function createMilvusLeafStore(options: MilvusLeafStoreOptions): MilvusLeafStore {
  const { address, collection, dim } = options;
  const client = newMilvusClient(options);
  const where = `collection "${collection}" at ${address}`;
  const target: CollectionTarget = { client, collection, dim, where, address };
  const queueKey = `${address}/${collection}`;
  const write = <T>(run: () => Promise<T>) => serialized(queueKey, run);
  let sparseDropRatio = SPEC_DROP_RATIO;

  // The chunking last read from the collection; null: not read since it was created or dropped here.
  let chunkingSeen: ChunkingVersion | null = null;
  const chunking = async (): Promise<ChunkingVersion> => {
    // A collection without a BM25 function is refused by ensureCollection; until then its rows are plain.
    chunkingSeen = (await readChunking(target)) ?? PLAIN_CHUNKING;
    return chunkingSeen;
  };
  const knownChunking = async (): Promise<ChunkingVersion> => chunkingSeen ?? chunking();

  // One load however many reads find the collection released at once (the two hybrid legs after a restart).
  let loading: Promise<boolean> | null = null;
  const loadShared = () =>
    (loading ??= loadIfNeeded(target).finally(() => {
      loading = null;
    }));

  /**
   * A read; when it fails because the collection is not loaded (e.g. Milvus restarted), load and retry once. A read
   * told "released" retries even when another read loaded the collection meanwhile: it would otherwise fail the
   * hybrid recall into a dense fallback although the collection is loaded.
   */
  const read = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await milvusCall(where, operation, run);
    } catch (error) {
      if (!(error instanceof RagError) || error.code !== 'INTERNAL') throw error;
      // Only a collection that was not loaded is worth a second try; any other refusal stands.
      const loadedNow = await loadShared().catch(() => false);
      if (!loadedNow && !NOT_LOADED.test(error.message)) throw error;
      return milvusCall(where, operation, run);
    }
  };

  /** A BM25 read with the spec's drop ratio, or 0 once the server has said that only 0 is supported. */
  const readSparse = async <T>(operation: string, run: (dropRatio: number) => Promise<T>): Promise<T> => {
    // The ratio this call used, not the shared one: a concurrent call may have learned "only 0" meanwhile.
    const used = sparseDropRatio;
    try {
      return await read(operation, () => run(used));
    } catch (error) {
      if (used === 0 || !ONLY_ZERO_DROP_RATIO.test(String(error))) throw error;
      sparseDropRatio = 0;
      return read(operation, () => run(0));
    }
  };

  const count = async (filter: string): Promise<number> => {
    const reply = await read('count', () =>
      client.query({
        collection_name: collection,
        filter,
        output_fields: ['count(*)'],
        consistency_level: ConsistencyLevelEnum.Strong, // right after a write, on Milvus too
      }),
    );
    return Number(reply.data[0]?.['count(*)'] ?? 0);
  };

  const common = (search: LeafSearch) => ({
    collection_name: collection,
    filter: leafFilter(search),
    limit: search.limit,
    output_fields: OUTPUT_FIELDS,
  });

  return {
    collection,

    ensureCollection: () =>
      write(async () => {
        chunkingSeen = null;
        await ensureCollection(target);
      }),

    chunking,

    exists: () => milvusCall(where, 'hasCollection', async () => Boolean((await client.hasCollection({ collection_name: collection })).value)),

    insertLeaves: async (leaves: StoredLeaf[]) => {
      // A leaf Milvus would refuse is refused here, before anything is written (the rows as a plain collection takes
      // them: the same checks), and the call joins the write queue at once, keeping the order of the calls.
      leaves.forEach((leaf) => toLeafRow(leaf, dim));
      return write(async () => {
        const rowChunking = await knownChunking();
        const rows = leaves.map((leaf) => toLeafRow(leaf, dim, rowChunking));
        let inserted = 0;
        for (let i = 0; i < rows.length; i += INSERT_BATCH) {
          const data = rows.slice(i, i + INSERT_BATCH);
          const reply = await milvusCall(where, 'insert', () => client.insert({ collection_name: collection, data }));
          inserted += Number(reply.insert_cnt);
        }
        return inserted;
      });
    },

    // One delete call per document: Milvus applies a delete by filter as one operation, so a search sees all of
    // the document's leaves or none of them.
    deleteByDocument: (docId) =>
      write(async () => {
        const filter = `file_path == ${quoteForFilter(docId)}`;
        await milvusCall(where, 'delete', () => client.delete({ collection_name: collection, filter }));
      }),

    vectorsOfDocument: async (docId, model) => {
      // Keyed by the text that was embedded: a contextual leaf's context and text, so a changed heading re-embeds.
      const embedded = (await knownChunking()) === PLAIN_CHUNKING ? FIELD.text : FIELD.indexedText;
      return read('query', async () => {
        const vectors = new Map<string, number[]>();
        const keep = (rows: Array<Record<string, unknown>>) => {
          for (const row of rows) {
            const dense = row[FIELD.dense];
            if (Array.isArray(dense) && dense.length === dim) vectors.set(String(row[embedded]), dense.map(Number));
          }
        };
        const page = options.vectorPageSize ?? VECTOR_PAGE;
        const query = {
          collection_name: collection,
          filter: `file_path == ${quoteForFilter(docId)} and ${FIELD.embeddingModel} == ${quoteForFilter(model)}`,
          output_fields: [embedded, FIELD.dense],
          consistency_level: ConsistencyLevelEnum.Strong,
        };
        // One query for a document of up to a page of leaves (most); a larger one is read again through the SDK's
        // iterator, which pages by primary key (Milvus answers one query with at most 16,384 rows).
        const first = (await client.query({ ...query, limit: page })).data as Array<Record<string, unknown>>;
        if (first.length < page) {
          keep(first);
          return vectors;
        }
        const pages = await client.queryIterator({ ...query, batchSize: page });
        for await (const rows of pages as AsyncIterable<Array<Record<string, unknown>>>) keep(rows);
        return vectors;
      });
    },

    countByDocument: (docId) => count(`file_path == ${quoteForFilter(docId)}`),

    countLeaves: () => count('chunk_level >= 0'),

    // issue 44: rows ingested since carry `meta` ({} for a document without any); older rows have no such field.
    countLeavesWithMeta: () => count(`chunk_level >= 0 and ${FIELD.meta} is not null`),

    documentsPassing: async (filter, limit) => {
      // The leaves' document ids, one query (Milvus returns at most 16,384 rows a query): distinct in code.
      const reply = await read('query', () =>
        client.query({ collection_name: collection, filter: documentFilter(filter), output_fields: ['file_path'], limit: Math.min(limit, 16_384) }),
      );
      return [...new Set((reply.data as Array<Record<string, unknown>>).map((row) => String(row.file_path)))];
    },

    setDocumentMeta: (docId, meta) =>
      write(async () => {
        // A partial upsert (the primary key and `meta` only): the vectors, the text and its BM25 terms stay as they
        // are, so nothing is embedded again. Milvus Lite 3.2.2 and Milvus 2.6 take it; an older Milvus refuses it.
        const ids: string[] = [];
        const pages = await client.queryIterator({ collection_name: collection, filter: `file_path == ${quoteForFilter(docId)}`, output_fields: [FIELD.id], batchSize: VECTOR_PAGE, consistency_level: ConsistencyLevelEnum.Strong });
        for await (const rows of pages as AsyncIterable<Array<Record<string, unknown>>>) ids.push(...rows.map((row) => String(row[FIELD.id])));
        for (let i = 0; i < ids.length; i += INSERT_BATCH) {
          const data = ids.slice(i, i + INSERT_BATCH).map((id) => ({ [FIELD.id]: id, [FIELD.meta]: meta }));
          await milvusCall(where, 'upsert (partial: meta)', () => client.upsert({ collection_name: collection, data, partial_update: true }));
        }
        return ids.length;
      }),

    documentsAmong: async (docIds) => {
      const found: string[] = [];
      for (const docId of docIds) {
        // One leaf of a document is enough to know that it is here.
        const reply = await read('query', () =>
          client.query({ collection_name: collection, filter: `file_path == ${quoteForFilter(docId)}`, output_fields: ['file_path'], limit: 1, consistency_level: ConsistencyLevelEnum.Strong }),
        );
        if (reply.data.length > 0) found.push(docId);
      }
      return found;
    },

    flush: () =>
      write(async () => {
        await milvusCall(where, 'flush', () => client.flushSync({ collection_names: [collection] }));
      }),

    searchDense: async (vector, search) => {
      const reply = await read('dense search', () =>
        client.search({
          ...common(search),
          anns_field: FIELD.dense,
          data: vector,
          metric_type: MetricType.IP,
          params: { ef: efFor(search.limit) },
        }),
      );
      return rowsOf(reply.results).map((row) => toLeafHit(row, Number(row.score)));
    },

    searchBm25: async (text, search) => {
      const reply = await readSparse('BM25 search', (dropRatio) =>
        client.search({
          ...common(search),
          anns_field: FIELD.sparse,
          data: text,
          metric_type: MetricType.BM25,
          params: { drop_ratio_search: dropRatio },
        }),
      );
      return rowsOf(reply.results).map((row) => toLeafHit(row, Math.abs(Number(row.score))));
    },

    hybridSearchMilvusRrf: async (vector, text, search) => {
      const legLimit = search.legLimit ?? 2 * search.limit;
      const filter = leafFilter(search);
      // The SDK merges each sub-request into the request, so metric_type and limit may be given per leg.
      type Leg = HybridSearchSingleReq & { metric_type: string; limit: number };
      const reply = await readSparse('hybrid search', (dropRatio) => {
        const dense: Leg = { anns_field: FIELD.dense, data: vector, expr: filter, limit: legLimit, metric_type: MetricType.IP, params: { ef: efFor(legLimit) } };
        const sparse: Leg = { anns_field: FIELD.sparse, data: text, expr: filter, limit: legLimit, metric_type: MetricType.BM25, params: { drop_ratio_search: dropRatio } };
        return client.hybridSearch({
          collection_name: collection,
          data: [dense, sparse],
          rerank: RRFRanker(RRF_K),
          limit: search.limit,
          output_fields: OUTPUT_FIELDS,
        });
      });
      return rowsOf(reply.results).map((row) => toLeafHit(row, Number(row.score)));
    },

    dropCollection: () =>
      write(async () => {
        chunkingSeen = null;
        await milvusCall(where, 'dropCollection', () => client.dropCollection({ collection_name: collection }));
      }),

    close: () => client.closeConnection().then(() => undefined),
  };
}
