import type { IngestBatchResult, IngestError, IngestFileData, IngestFileResult, IngestFlush, IngestProgress } from './ingest-io';

/** The name chunks are keyed by (spec §6.11 chunk ids, the stores' delete-by-filename): the last path segment. */
export function fileNameOf(file: string): string {
  const trimmed = file.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

type Entry = { file: string; filename: string; docId: string | null; clash: string | null; startedAt: number | null; result: IngestFileResult | null };

export type IngestTask = { index: number; file: string; filename: string; docId: string | null };

/**
 * The state of one ingestion batch (ingestWorkflow): which file is next, which are running, and each file's result.
 * Time comes in as arguments. Chunks are keyed by document id (DESIGN §4b; by file name for batches recorded before
 * ids, `ids` null), so two files of one batch with the same key would replace each other's chunks: the later one
 * fails instead, with a message saying which file holds the key.
 */
export class IngestBatch {
  private readonly entries: Entry[];
  private next = 0;
  private flush: (IngestFlush & { startedAt: number }) | null = null;
  private writtenKb: string | undefined;

  constructor(
    files: readonly string[],
    private readonly startedAt: number,
    readonly batchLabel?: string,
    ids: readonly string[] | null = null,
    readonly kb?: string,
  ) {
    const owners = new Map<string, string>();
    this.entries = files.map((file, i) => {
      const filename = fileNameOf(file);
      const docId = ids === null ? null : (ids[i] ?? file);
      const key = docId ?? filename;
      const owner = owners.get(key);
      if (owner === undefined) owners.set(key, file);
      return { file, filename, docId, clash: owner ?? null, startedAt: null, result: null };
    });
  }

  /** The next file to ingest, or null when none is left; files whose name clashes are failed on the way. */
  take(now: number): IngestTask | null {
    while (this.next < this.entries.length) {
      const index = this.next++;
      const entry = this.entries[index]!;
      entry.startedAt = now;
      if (entry.clash === null) return { index, file: entry.file, filename: entry.filename, docId: entry.docId };
      const message =
        entry.clash === entry.file
          ? `${entry.filename}: ${entry.file} is listed twice in this batch; it is ingested once`
          : entry.docId === null
            ? `${entry.filename}: ${entry.clash} in this batch has the same file name, and chunks are keyed by file name (one would replace the other); rename one of them`
            : `${entry.filename}: ${entry.clash} in this batch has the same document id ${JSON.stringify(entry.docId)} (one would replace the other); give one of them another id`;
      this.fail(index, { type: 'INVALID_INPUT', message }, now);
    }
    return null;
  }

  succeed(index: number, data: IngestFileData, now: number): void {
    // Where the files went, when the batch named no knowledge base (the worker's default).
    this.writtenKb ??= data.kb;
    this.settle(index, now, { status: 'ingested', l1: data.l1, l2: data.l2, l3: data.l3, ...(data.leaves_reused ? { leaves_reused: data.leaves_reused } : {}) });
  }

  fail(index: number, error: IngestError, now: number): void {
    this.settle(index, now, { status: 'failed', l1: 0, l2: 0, l3: 0, error });
  }

  /** Whether any file of the batch inserted leaves (then the batch ends with a flush). */
  insertedLeaves(): boolean {
    return this.results().some((r) => r.status === 'ingested' && r.l3 > 0);
  }

  startFlush(now: number): void {
    this.flush = { status: 'running', duration_ms: 0, startedAt: now };
  }

  finishFlush(now: number, error?: IngestError): void {
    if (!this.flush) return;
    this.flush = { status: error ? 'failed' : 'flushed', duration_ms: now - this.flush.startedAt, ...(error ? { error } : {}), startedAt: this.flush.startedAt };
  }

  progress(): IngestProgress {
    const results = this.results();
    return {
      ...(this.batchLabel === undefined ? {} : { batchLabel: this.batchLabel }),
      total: this.entries.length,
      done: results.length,
      ingested: results.filter((r) => r.status === 'ingested').length,
      failed: results.filter((r) => r.status === 'failed').length,
      running: this.entries.filter((e) => e.startedAt !== null && e.result === null).map((e) => e.file),
      results,
      ...this.flushPart(),
    };
  }

  result(now: number): IngestBatchResult {
    const files = this.results();
    const ingested = files.filter((r) => r.status === 'ingested');
    const sum = (key: 'l1' | 'l2' | 'l3') => ingested.reduce((total, r) => total + r[key], 0);
    return {
      ...(this.batchLabel === undefined ? {} : { batchLabel: this.batchLabel }),
      ...((this.kb ?? this.writtenKb) === undefined ? {} : { kb: this.kb ?? this.writtenKb }),
      files,
      totals: {
        files: this.entries.length,
        ingested: ingested.length,
        failed: files.length - ingested.length,
        l1: sum('l1'),
        l2: sum('l2'),
        l3: sum('l3'),
        duration_ms: now - this.startedAt,
      },
      ...this.flushPart(),
    };
  }

  private flushPart(): { flush?: IngestFlush } {
    if (!this.flush) return {};
    const { startedAt: _startedAt, ...flush } = this.flush;
    return { flush };
  }

  /** Finished files, in input order. */
  private results(): IngestFileResult[] {
    return this.entries.flatMap((e) => (e.result ? [e.result] : []));
  }

  private settle(index: number, now: number, outcome: Omit<IngestFileResult, 'file' | 'filename' | 'duration_ms'>): void {
    const entry = this.entries[index];
    if (!entry || entry.result) return;
    entry.result = {
      file: entry.file,
      filename: entry.filename,
      ...(entry.docId === null ? {} : { doc_id: entry.docId }),
      ...outcome,
      duration_ms: now - (entry.startedAt ?? now),
    };
  }
}
