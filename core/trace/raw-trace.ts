import type { Chunk } from '../schemas/retrieved-chunk';
import type { RagSubTrace, RagTrace } from '../schemas/rag-trace';
import type { CHUNK_LIST_FIELDS, RetrievalMetaField } from '../schemas/rag-trace';

type ChunkListField = (typeof CHUNK_LIST_FIELDS)[number];

/**
 * The raw trace T a run builds (spec §0.2): protocol fields whose value may be null ("written as None"),
 * chunk lists holding runtime chunks, and the raw-only `rewrite_count` (spec §5.1) that normalization drops.
 */
export type RawRagTrace = Omit<RagTrace, ChunkListField | 'sub_traces'> & {
  [K in ChunkListField]?: Chunk[] | null;
} & {
  sub_traces?: RagSubTrace[] | null;
  rewrite_count?: number;
};

/** The retrieval meta a retrieval returns: the 26 R fields, null where not produced (spec §6.9). */
export type RetrievalMeta = Pick<RagSubTrace, RetrievalMetaField>;
