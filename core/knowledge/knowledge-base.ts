import { z } from 'zod';
import { ChunkingVersion } from '../ingest/leaf-context';
import { DocumentMeta } from './document-meta';

/*
 * Knowledge bases and documents as named objects (DESIGN §4b). A knowledge base is a Milvus collection of the same
 * name plus its rows in the parent store and the document registry, keyed by knowledge base everywhere. A document
 * has an id unique within its knowledge base; the spec's `filename` (the base name) stays what the trace shows.
 */

/** A knowledge base name: a Milvus collection name (a letter or "_" first, then letters, digits, "_"; ≤ 255). */
export const KbName = z
  .string()
  .trim()
  .min(1, 'knowledge base name is empty')
  .max(255, 'knowledge base name is longer than 255 characters')
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'knowledge base name may hold letters, digits and _ only, and starts with a letter or _');
export type KbName = z.infer<typeof KbName>;

/**
 * Bytes a document id may take: it prefixes every chunk id ("<id>::p<page>::l<level>::<n>", spec §6.11), which the
 * leaf collection stores in 512 bytes (spec §6.10).
 */
export const DOCUMENT_ID_MAX_BYTES = 400;

const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/**
 * A document id: by default the file's path as given to ingest, normalized (relative to the working directory when
 * the file is under it, else absolute; "/" separators), or one chosen with --id / --prefix.
 */
export const DocumentId = z
  .string()
  .trim()
  .min(1, 'document id is empty')
  .refine((id) => utf8Length(id) <= DOCUMENT_ID_MAX_BYTES, { message: `document id is longer than ${DOCUMENT_ID_MAX_BYTES} bytes of UTF-8` })
  .refine((id) => !/[\u0000-\u001f\u007f]/.test(id), { message: 'document id holds a control character' })
  .refine((id) => !id.includes('::'), { message: 'document id holds "::", which separates the parts of a chunk id' });
export type DocumentId = z.infer<typeof DocumentId>;

/** A document of a knowledge base, as the registry keeps it (`ragtime docs list`). */
export const DocumentRecord = z.object({
  kb: z.string(),
  doc_id: z.string(),
  /** The base name the trace shows (spec §5.3 `filename`). */
  filename: z.string(),
  /** Where it was read from (absolute path); '' for documents registered from data written before the registry. */
  source: z.string(),
  file_type: z.string(),
  pages: z.number().int().min(0),
  l1: z.number().int().min(0),
  l2: z.number().int().min(0),
  l3: z.number().int().min(0),
  /**
   * Bytes (UTF-8) of text in its chunks, leaves and parents; for documents registered from data written before the
   * registry, the characters of their parent chunks.
   */
  bytes: z.number().int().min(0),
  /** sha256 of the file's bytes; '' when unknown (registered from older data). */
  content_hash: z.string(),
  /** ISO time of the ingestion that wrote it. */
  ingested_at: z.string(),
  /** Its metadata (issue 44 §1): folder, front matter, --meta; absent for documents ingested before metadata. */
  meta: DocumentMeta.optional(),
});
export type DocumentRecord = z.infer<typeof DocumentRecord>;

/** `ragtime kb stats`: what a knowledge base holds. */
export const KbStats = z.object({
  kb: z.string(),
  documents: z.number().int().min(0),
  chunks: z.object({ l1: z.number().int().min(0), l2: z.number().int().min(0), l3: z.number().int().min(0) }),
  bytes: z.number().int().min(0),
  /** ISO time of the latest ingestion, null when it holds no document. */
  last_ingest: z.string().nullable(),
  /**
   * How its leaves are chunked (issue 42 §1): `contextual-v1` for a knowledge base created now, `plain` for an older
   * one, which keeps it (re-ingestion included) until it is dropped and created again. Absent from a store that
   * cannot tell.
   */
  chunking: ChunkingVersion.optional(),
  /**
   * Whether its leaves carry metadata (issue 44): `all`, `some` (documents ingested before metadata, not since), or
   * `none` (a knowledge base ingested before it: filters other than doc_id match nothing until re-ingested). Absent
   * from a store that cannot tell.
   */
  metadata: z.enum(['all', 'some', 'none']).optional(),
});
export type KbStats = z.infer<typeof KbStats>;

/**
 * The message of UNKNOWN_KB: the name, and how to make one. With `existing` (for a caller who may see every knowledge
 * base: the operator's CLI), the ones that do exist; without it, none: a worker's run failure and the HTTP API reach
 * tenants, who must not learn another tenant's names (issue 35 §3).
 */
export function unknownKbMessage(kb: string, existing: readonly string[] | null = null): string {
  const known = existing === null ? '' : existing.length === 0 ? ' (there are none yet)' : ` (the knowledge bases are: ${[...existing].sort().join(', ')})`;
  return `knowledge base "${kb}" does not exist${known}; create it with \`ragtime kb create ${kb}\``;
}
