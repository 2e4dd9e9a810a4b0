import { z } from 'zod';
import { LaxFloat, LaxInt, LaxStrOrInt } from './lax';

/** The 6 chunk fields of the trace protocol (spec §5.3). `filename` is the only required one. */
export const RetrievedChunk = z.strictObject({
  filename: z.string(),
  page_number: LaxStrOrInt.nullish(),
  text: z.string().nullish(),
  score: LaxFloat.nullish(),
  rrf_rank: LaxInt.nullish(),
  rerank_score: LaxFloat.nullish(),
});
export type RetrievedChunk = z.infer<typeof RetrievedChunk>;

export const RETRIEVED_CHUNK_FIELDS = ['filename', 'page_number', 'text', 'score', 'rrf_rank', 'rerank_score'] as const;

/**
 * A chunk as retrieval produces it (spec §6.3, §6.5): the 6 protocol fields plus the runtime keys that
 * normalization strips. Loose on purpose: chunks cross activity boundaries as JSON.
 */
export const Chunk = z.looseObject({
  id: z.union([z.string(), z.number()]).optional(),
  /** The document's own words: what an answer quotes and a citation is checked against (issue 42 §1). */
  text: z.string().optional(),
  /**
   * Where the chunk sits in its document, for knowledge bases chunked `contextual-v1` (core/ingest/leaf-context.ts):
   * the document's title and the Markdown headings in force where the chunk starts ("tar › Extract archives").
   * Embedded, keyword-indexed and graded with `text` (`context + "\n" + text`), never quoted; absent on older
   * knowledge bases (`plain`). Not one of the 6 protocol fields: normalization drops it from the trace.
   */
  context: z.string().optional(),
  filename: z.string().optional(),
  file_type: z.string().optional(),
  file_path: z.string().optional(),
  page_number: z.union([z.string(), z.number()]).optional(),
  chunk_id: z.string().optional(),
  parent_chunk_id: z.string().optional(),
  root_chunk_id: z.string().optional(),
  chunk_level: z.number().optional(),
  chunk_idx: z.number().optional(),
  score: z.number().optional(),
  rrf_rank: z.number().optional(),
  rerank_score: z.number().optional(),
  merged_from_children: z.boolean().optional(),
  merged_child_count: z.number().optional(),
  /** DESIGN §4b: the document the chunk belongs to (unique in its knowledge base) and where it was read from. */
  doc_id: z.string().optional(),
  source: z.string().optional(),
});
export type Chunk = z.infer<typeof Chunk>;
