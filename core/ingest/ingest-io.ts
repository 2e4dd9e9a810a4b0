import { z } from 'zod';
import { DocumentMeta } from '../knowledge/document-meta';
import { DocumentId, KbName } from '../knowledge/knowledge-base';

/*
 * The contracts of ingestion (spec §6.11): what a loader produces, what the ingestFile activity takes and returns,
 * and the batch workflow's input, progress and result.
 */

/** One page of a loaded document: a PDF page (0-based), an HTML section (1-based), or page 0 of a flat text. */
export type DocumentPage = { page_number: number; text: string };

/** What a loader reads from one file, with the identity the chunks will carry. */
export type LoadedDocument = { filename: string; file_path: string; file_type: string; pages: DocumentPage[] };

/** A batch is one workflow run; its history grows with every file, so a larger set is split into several runs. */
export const MAX_FILES_PER_BATCH = 1000;
/** How many files are ingested at once: embedding is the bottleneck, and one embedder serves them all. */
export const DEFAULT_INGEST_CONCURRENCY = 2;

export const IngestWorkflowInput = z
  .object({
    files: z
      .array(z.string().trim().min(1).refine((file) => file.startsWith('/'), { message: 'must be an absolute path' }))
      .max(MAX_FILES_PER_BATCH, { message: `at most ${MAX_FILES_PER_BATCH} files per batch; start several batches` }),
    /** The document id of each file (DESIGN §4b), in the order of `files`; absent: each file's absolute path. */
    ids: z.array(DocumentId).optional(),
    /** The knowledge base to ingest into; absent: the worker's default (RAGTIME_KB). */
    kb: KbName.optional(),
    /** Replace a document whose id another file holds (otherwise such a file fails with DOCUMENT_EXISTS). */
    replace: z.boolean().optional(),
    /** Embed every leaf again, instead of keeping the vector of a leaf whose text and embedding model are unchanged. */
    reembed: z.boolean().optional(),
    batchLabel: z.string().trim().max(200).optional(),
    /** Metadata every file of the batch carries (`ingest --meta`, issue 44 §1), over its folder and front matter. */
    meta: DocumentMeta.optional(),
    concurrency: z.number().int().min(1).max(16).optional(),
  })
  .refine((input) => input.ids === undefined || input.ids.length === input.files.length, {
    message: 'ids must give one document id per file, in the order of files',
    path: ['ids'],
  });
export type IngestWorkflowInput = z.input<typeof IngestWorkflowInput>;

export type IngestFileInput = {
  file: string;
  /** The base name, the `filename` the trace shows (spec §5.3). */
  filename: string;
  /** The document's id in its knowledge base; absent (inputs recorded before ids): the file's absolute path. */
  docId?: string;
  kb?: string;
  replace?: boolean;
  reembed?: boolean;
  /** Metadata given for the file (`ingest --meta`, issue 44 §1), over its folder and front matter; absent: none. */
  meta?: DocumentMeta;
  /**
   * Another document of the knowledge base whose vectors a leaf of the same embedded text keeps (issue 46: a file a
   * sync pass found renamed is ingested under its new id without embedding again).
   */
  reuseFrom?: string;
};

export type ChunkCounts = { l1: number; l2: number; l3: number };

export type IngestFileData = ChunkCounts & {
  filename: string;
  /** DESIGN §4b: the document id and knowledge base written (absent in results recorded before them). */
  doc_id?: string;
  kb?: string;
  /** Documents of the same file registered under other ids before ids existed, replaced by this one. */
  adopted?: string[];
  file_type: string;
  pages: number;
  /** Leaves a previous attempt had already inserted and this one kept (0 for a fresh start). */
  resumed_leaves: number;
  /** Leaves whose vector the stored version of the document already had (same text, same model): not embedded again. */
  leaves_reused?: number;
};

export type IngestError = { type: string; message: string };

export type IngestFileResult = ChunkCounts & {
  file: string;
  filename: string;
  doc_id?: string;
  status: 'ingested' | 'failed';
  /** Leaves that kept the stored version's vector (absent when none did, and in results recorded before it). */
  leaves_reused?: number;
  error?: IngestError;
  duration_ms: number;
};

export type IngestTotals = ChunkCounts & { files: number; ingested: number; failed: number; duration_ms: number };

/**
 * The flush after a batch (LeafStore.flush): absent when no leaf was inserted (or for batches recorded before it).
 * A failed flush leaves the knowledge searchable, only slower, until the next batch flushes.
 */
export type IngestFlush = { status: 'running' | 'flushed' | 'failed'; duration_ms: number; error?: IngestError };

export type IngestBatchResult = { batchLabel?: string; kb?: string; files: IngestFileResult[]; totals: IngestTotals; flush?: IngestFlush };

export type IngestProgress = {
  batchLabel?: string;
  total: number;
  done: number;
  ingested: number;
  failed: number;
  /** Absolute paths of the files being ingested right now. */
  running: string[];
  /** Results so far, in input order of completion. */
  results: IngestFileResult[];
  /** Once every file is done: the flush that seals what the batch inserted. */
  flush?: IngestFlush;
};

/** spec §6.10: leaves are embedded and inserted 50 at a time. */
export const LEAF_BATCH_SIZE = 50;

/** Stages an ingestFile attempt reports in its heartbeats, in order. */
export const IngestStage = z.enum(['parsing', 'split', 'cleared', 'parents_written', 'embedding', 'inserted']);
export type IngestStage = z.infer<typeof IngestStage>;

/**
 * What an ingestFile attempt waits on right now (issue 14 §5), shown by `ragtime ingest` from the heartbeat the
 * server holds: the embeddings server for a batch, the leaf store (Milvus) for an insert, the parent store, or both
 * stores for a clear. `since` is when the wait began (epoch ms, the worker's clock); `timeout_ms` how long it may
 * last before the attempt fails.
 */
export const IngestWait = z.object({
  on: z.enum(['embedding', 'inserting', 'writing_parents', 'clearing', 'reading_vectors']),
  /** 1-based leaf batch of `batches` (embedding, inserting), the request of it (`part` of `parts`), and its texts. */
  batch: z.number().int().positive().optional(),
  batches: z.number().int().positive().optional(),
  part: z.number().int().positive().optional(),
  parts: z.number().int().positive().optional(),
  texts: z.number().int().nonnegative().optional(),
  /** Where the request went: the embeddings base URL, or the knowledge base. */
  target: z.string().optional(),
  since: z.number(),
  timeout_ms: z.number().int().positive().optional(),
});
export type IngestWait = z.infer<typeof IngestWait>;

/**
 * Heartbeat details of ingestFile. A retried attempt resumes after `leaves_inserted` only when the file is byte for
 * byte the same (`fingerprint`) and both stores hold exactly what this record says; otherwise it starts over.
 * `wait`, `resumed_leaves` and `last_failure` only describe the attempt (absent from details recorded before them).
 */
export const IngestHeartbeat = z.object({
  file: z.string(),
  stage: IngestStage,
  fingerprint: z.string(),
  pages_parsed: z.number().int().nonnegative(),
  pages_total: z.number().int().nonnegative(),
  l1: z.number().int().nonnegative(),
  l2: z.number().int().nonnegative(),
  l3: z.number().int().nonnegative(),
  leaves_embedded: z.number().int().nonnegative(),
  leaves_inserted: z.number().int().nonnegative(),
  wait: IngestWait.optional(),
  /** Leaves a previous attempt had inserted and this one kept. */
  resumed_leaves: z.number().int().nonnegative().optional(),
  /** Leaves that kept the vector the stored version of the document had (same text and model). */
  leaves_reused: z.number().int().nonnegative().optional(),
  /**
   * The message of the previous attempt's failure (cut): the server keeps only a short failure of a pending activity,
   * and ragtime's sealed failures are longer ("Failure exceeds size limit.").
   */
  last_failure: z.string().optional(),
});
export type IngestHeartbeat = z.infer<typeof IngestHeartbeat>;
