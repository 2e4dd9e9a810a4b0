import { type CreateCollectionReq, DataType, FunctionType, IndexType, MetricType } from '@zilliz/milvus2-sdk-node';
import { CHUNKING_VERSION, type ChunkingVersion } from '../../../core/ingest/leaf-context';

/*
 * The leaf collection of spec §6.10, adapted to Milvus Lite 3.2.2 (and valid on Milvus / Zilliz Cloud as is):
 * - analyzer: SuperMew's `{type: 'chinese'}` is rejected by Milvus Lite ("unknown tokenizer type: 'chinese'
 *   (supported: 'standard', 'jieba')"); `{tokenizer: 'jieba', filter: ['cnalphanumonly']}` is what Milvus' built-in
 *   "chinese" analyzer expands to, and works on both (DESIGN §6).
 * - drop_ratio_build / drop_ratio_search 0.2: Milvus Lite accepts only 0 ("only drop_ratio_build=0 is supported");
 *   the store asks for 0.2 and falls back to 0 when the server says so (see milvus-leaf-store.ts).
 * - contextual leaves (issue 42 §1): a BM25 function reads one VARCHAR field, so a collection created now has
 *   `indexed_text` (the leaf's context, a newline, its text) as the BM25 input beside `text` (the document's own
 *   words, returned by searches and quoted), and the context itself as a dynamic field. A collection created before
 *   has BM25 over `text`: its schema cannot take the new input, so it stays `plain` until it is recreated. The BM25
 *   input field is how a collection records its chunking (`chunkingOfBm25Input`).
 */

export const FIELD = {
  id: 'id',
  dense: 'dense_embedding',
  sparse: 'sparse_embedding',
  text: 'text',
  /** contextual-v1: the BM25 input, `context + "\n" + text` (not returned by searches). */
  indexedText: 'indexed_text',
  /** A dynamic field: the leaf's context (contextual-v1 only). */
  context: 'context',
  /** A dynamic field: the embedding model that computed the row's dense vector (absent on rows written before it). */
  embeddingModel: 'embedding_model',
  /** A dynamic field: the document's metadata, a JSON object of string lists (issue 44; absent on older rows). */
  meta: 'meta',
} as const;

// spec §6.10: VARCHAR lengths. Milvus counts max_length in bytes of UTF-8, so inserts are checked in bytes.
export const VARCHAR_LIMITS = {
  text: 65_535,
  filename: 255,
  file_type: 50,
  file_path: 1024,
  chunk_id: 512,
  parent_chunk_id: 512,
  root_chunk_id: 512,
} as const;

export const INT_FIELDS = ['page_number', 'chunk_idx', 'chunk_level'] as const;

// spec §6.3: the output fields of every search, plus the primary key (Milvus Lite returns it only when listed).
export const OUTPUT_FIELDS = [
  FIELD.id,
  'text',
  'filename',
  'file_type',
  'page_number',
  'chunk_id',
  'parent_chunk_id',
  'root_chunk_id',
  'chunk_level',
  'chunk_idx',
  // DESIGN §4b: the document id and (a dynamic field) the source path.
  'file_path',
  'source',
  // issue 42 §1: the leaf's context (a dynamic field; absent from rows of a plain collection).
  FIELD.context,
];

/** The VARCHAR limit of `indexed_text` (the same as `text`'s, spec §6.10). */
export const INDEXED_TEXT_LIMIT = 65_535;

/** The field a collection of this chunking feeds to BM25. */
export const bm25InputOf = (chunking: ChunkingVersion): string => (chunking === 'plain' ? FIELD.text : FIELD.indexedText);

/** The chunking a collection records by its BM25 input field; null for a field ragtime never uses. */
export function chunkingOfBm25Input(field: string): ChunkingVersion | null {
  if (field === FIELD.text) return 'plain';
  if (field === FIELD.indexedText) return 'contextual-v1';
  return null;
}

export const CHINESE_ANALYZER = { tokenizer: 'jieba', filter: ['cnalphanumonly'] }; // DESIGN §6

export const BM25_FUNCTION_NAME = 'text_bm25_emb'; // spec §6.10

// spec §6.10: HNSW on the dense vector, metric IP.
export const DENSE_INDEX = {
  field_name: FIELD.dense,
  index_name: 'dense_embedding_hnsw',
  index_type: IndexType.HNSW,
  metric_type: MetricType.IP,
  params: { M: 16, efConstruction: 256 },
};

// spec §6.10: SPARSE_INVERTED_INDEX with BM25; drop_ratio_build is filled in by the store.
export const SPARSE_INDEX = {
  field_name: FIELD.sparse,
  index_name: 'sparse_embedding_bm25',
  index_type: IndexType.SPARSE_INVERTED_INDEX,
  metric_type: MetricType.BM25,
};

export const SPEC_DROP_RATIO = 0.2; // spec §6.3.1 (search) and §6.10 (build)
export const DENSE_SEARCH_EF = 64; // spec §6.3.1

/** The fields every leaf row has besides the pk and the BM25 output (checked on an existing collection). */
export const REQUIRED_FIELDS = [FIELD.dense, FIELD.sparse, ...Object.keys(VARCHAR_LIMITS), ...INT_FIELDS];

/**
 * The leaf collection of `chunking` (default: the chunking of knowledge bases created now); `plain` is the schema
 * every collection had before issue 42, kept for tests of old knowledge bases.
 */
export function collectionSchema(collection: string, dim: number, chunking: ChunkingVersion = CHUNKING_VERSION): CreateCollectionReq {
  const varchar = (name: keyof typeof VARCHAR_LIMITS) => ({
    name,
    data_type: DataType.VarChar,
    max_length: VARCHAR_LIMITS[name],
  });
  const int64 = (name: string) => ({ name, data_type: DataType.Int64 });
  const analyzed = { enable_analyzer: true, enable_match: true, analyzer_params: CHINESE_ANALYZER };
  const plain = chunking === 'plain';
  // contextual-v1: `text` is stored and returned, not analyzed; `indexed_text` is what BM25 reads.
  const textFields = plain
    ? [{ ...varchar('text'), ...analyzed }]
    : [varchar('text'), { name: FIELD.indexedText, data_type: DataType.VarChar, max_length: INDEXED_TEXT_LIMIT, ...analyzed }];
  return {
    collection_name: collection,
    enable_dynamic_field: true, // spec §6.10
    fields: [
      { name: FIELD.id, data_type: DataType.Int64, is_primary_key: true, autoID: true },
      { name: FIELD.dense, data_type: DataType.FloatVector, dim },
      { name: FIELD.sparse, data_type: DataType.SparseFloatVector },
      ...textFields,
      varchar('filename'),
      varchar('file_type'),
      varchar('file_path'),
      int64('page_number'),
      int64('chunk_idx'),
      varchar('chunk_id'),
      varchar('parent_chunk_id'),
      varchar('root_chunk_id'),
      int64('chunk_level'),
    ],
    functions: [
      {
        name: BM25_FUNCTION_NAME,
        type: FunctionType.BM25,
        input_field_names: [bm25InputOf(chunking)],
        output_field_names: [FIELD.sparse],
        params: {},
      },
    ],
  };
}
