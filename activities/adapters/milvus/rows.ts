import type { RowData } from '@zilliz/milvus2-sdk-node';
import { RagError } from '../../../core/errors';
import { indexedText, type ChunkingVersion } from '../../../core/ingest/leaf-context';
import type { LeafHit, StoredLeaf } from '../../ports';
import { FIELD, INDEXED_TEXT_LIMIT, INT_FIELDS, VARCHAR_LIMITS } from './schema';

/*
 * Leaf rows in and search hits out. Milvus Lite and the Node SDK return int64 fields as strings ("3"), so numbers
 * are converted here; the pk stays a string (an int64 may not fit a JS number).
 */

type Row = Record<string, unknown>;

const text = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

function int(value: unknown): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? n : 0;
}

/** spec §6.3: a hit as a runtime chunk, with its defaults; `score` is the caller's reading of the distance. */
export function toLeafHit(row: Row, score: number): LeafHit {
  return {
    id: text(row[FIELD.id]),
    text: text(row.text),
    filename: text(row.filename),
    file_type: text(row.file_type),
    page_number: int(row.page_number),
    chunk_id: text(row.chunk_id),
    parent_chunk_id: text(row.parent_chunk_id),
    root_chunk_id: text(row.root_chunk_id),
    chunk_level: int(row.chunk_level),
    chunk_idx: int(row.chunk_idx),
    // DESIGN §4b: the document id (file_path) and where it was read from (a dynamic field; '' on older rows).
    doc_id: text(row.file_path),
    source: text(row.source),
    // issue 42 §1: the leaf's context, beside its text (a dynamic field of contextual collections).
    ...(text(row[FIELD.context]) === '' ? {} : { context: text(row[FIELD.context]) }),
    score: Number.isFinite(score) ? score : 0,
  };
}

/** The rows of a one-query search (the SDK returns one list, or one list per query). */
export function rowsOf(results: unknown): Row[] {
  if (!Array.isArray(results)) return [];
  return (Array.isArray(results[0]) ? results[0] : results) as Row[];
}

const utf8Bytes = (value: string) => Buffer.byteLength(value, 'utf8');

/**
 * A leaf as a Milvus row of a collection of `chunking`, after checking what Milvus would otherwise refuse with a less
 * helpful message. A contextual collection gets the BM25 input `indexed_text` (context, newline, text) and the
 * context; a plain one neither (its BM25 reads `text`).
 */
export function toLeafRow(leaf: StoredLeaf, dim: number, chunking: ChunkingVersion = 'plain'): RowData {
  const fail = (problem: string) => {
    throw new RagError('INVALID_INPUT', `leaf chunk ${JSON.stringify(leaf.chunk_id)} of ${JSON.stringify(leaf.filename)}: ${problem}`);
  };
  if (leaf.dense.length !== dim || !leaf.dense.every(Number.isFinite)) {
    fail(`dense embedding has ${leaf.dense.length} numbers (finite: ${leaf.dense.every(Number.isFinite)}); the collection expects ${dim} finite numbers`);
  }
  for (const [field, limit] of Object.entries(VARCHAR_LIMITS)) {
    const value = leaf[field as keyof typeof VARCHAR_LIMITS];
    if (typeof value !== 'string') fail(`${field} must be a string`);
    else if (utf8Bytes(value) > limit) fail(`${field} is ${utf8Bytes(value)} bytes of UTF-8; the collection allows ${limit}`);
  }
  const indexed = chunking === 'plain' ? null : indexedText(leaf);
  if (indexed !== null && utf8Bytes(indexed) > INDEXED_TEXT_LIMIT) {
    fail(`${FIELD.indexedText} (context and text) is ${utf8Bytes(indexed)} bytes of UTF-8; the collection allows ${INDEXED_TEXT_LIMIT}`);
  }
  for (const field of INT_FIELDS) {
    if (!Number.isSafeInteger(leaf[field])) fail(`${field} must be an integer, got ${JSON.stringify(leaf[field])}`);
  }
  return {
    [FIELD.dense]: leaf.dense,
    text: leaf.text,
    filename: leaf.filename,
    file_type: leaf.file_type,
    file_path: leaf.file_path,
    page_number: leaf.page_number,
    chunk_idx: leaf.chunk_idx,
    chunk_id: leaf.chunk_id,
    parent_chunk_id: leaf.parent_chunk_id,
    root_chunk_id: leaf.root_chunk_id,
    chunk_level: leaf.chunk_level,
    ...(indexed === null ? {} : { [FIELD.indexedText]: indexed }),
    ...(indexed === null || !leaf.context ? {} : { [FIELD.context]: leaf.context }),
    // Dynamic fields (the collection has enable_dynamic_field, spec §6.10): no schema change for older collections.
    ...(leaf.source === undefined ? {} : { source: leaf.source }),
    ...(leaf.embedding_model === undefined ? {} : { [FIELD.embeddingModel]: leaf.embedding_model }),
    // issue 44 §1: every leaf ingested now carries its document's metadata ({} for none), so `kb stats` can tell.
    ...(leaf.meta === undefined ? {} : { [FIELD.meta]: leaf.meta }),
  };
}
