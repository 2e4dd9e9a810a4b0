import { emptyDocumentReason } from '../../core/ingest/empty-document';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { RagError } from '../../core/errors';
import { buildHierarchy, countLevels, LEAF_LEVEL, type HierarchyChunk } from '../../core/ingest/hierarchy';
import type { ChunkCounts } from '../../core/ingest/ingest-io';
import { withLeafContexts } from '../../core/ingest/leaf-context';
import { sanitizeDocument } from '../../core/ingest/sanitize';
import { DEFAULT_LOADERS, loaderFor, type Loaders } from '../adapters/loaders';
import { fileError, type LoadedContent } from '../adapters/loaders/loader';
import { type DocumentMeta, mergeMeta } from '../../core/knowledge/document-meta';
import { readFrontMatter } from '../../core/knowledge/front-matter';

/** A file parsed and split, before any store is touched. */
export type PreparedFile = ChunkCounts & {
  /** The document id its chunks carry (file_path, and the prefix of every chunk id). */
  docId: string;
  /** Where it was read from (the absolute path). */
  source: string;
  filename: string;
  file_type: string;
  pages: number;
  /** sha256 of the bytes: a retried attempt resumes only on the same content. */
  fingerprint: string;
  /** Its metadata (issue 44 §1): folder, Markdown front matter, then what the ingestion was given. */
  meta: DocumentMeta;
  parents: HierarchyChunk[];
  leaves: HierarchyChunk[];
};

export type PrepareOptions = {
  loaders?: Loaders;
  signal?: AbortSignal;
  onPage?: (pagesDone: number, pagesTotal: number) => void;
  onWarning?: (message: string) => void;
};

/**
 * A Markdown file's front matter (issue 44 §1): its metadata, and the pages without the block (it is metadata, not
 * evidence); other files as loaded.
 */
function withoutFrontMatter(content: LoadedContent): { meta?: DocumentMeta; pages: LoadedContent['pages'] } {
  const [first, ...rest] = content.pages;
  if (content.file_type !== 'Markdown' || first === undefined) return { pages: content.pages };
  const front = readFrontMatter(first.text);
  return { meta: front.meta, pages: [{ ...first, text: front.body }, ...rest] };
}

/** Errors of reading the path that no retry can fix. */
const UNREADABLE: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

async function readBytes(file: string, filename: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(file));
  } catch (error) {
    const reason = UNREADABLE[(error as NodeJS.ErrnoException).code ?? ''];
    if (reason) throw new RagError('INVALID_INPUT', `${filename}: cannot read ${file}: ${reason}`, { cause: error });
    throw error; // anything else (EIO, EMFILE, …) may pass: retried
  }
}

/**
 * Read → load → sanitize → three-level split (spec §6.11) → contexts (issue 42 §1). Unsupported, corrupt and
 * empty files fail here, before the stores are touched, so a bad upload never removes the chunks of a good earlier
 * version (DESIGN §7: bad input changes nothing; the original deleted first).
 */
export async function prepareFile(file: string, filename: string, options: PrepareOptions & { docId?: string; meta?: DocumentMeta } = {}): Promise<PreparedFile> {
  const loader = loaderFor(filename, options.loaders ?? DEFAULT_LOADERS);
  const bytes = await readBytes(file, filename);
  const content = await loader({ bytes, filename, signal: options.signal, onPage: options.onPage });
  const docId = options.docId ?? file;
  const front = withoutFrontMatter(content);
  const document = sanitizeDocument({ filename, file_path: docId, file_type: content.file_type, pages: front.pages });
  // Every chunk carries its context (issue 42 §1); storeFile drops it for a knowledge base chunked `plain`.
  const chunks = withLeafContexts(document, buildHierarchy(document, options.onWarning));
  const leaves = chunks.filter((chunk) => chunk.chunk_level === LEAF_LEVEL);
  if (leaves.length === 0) {
    throw fileError('EMPTY_DOCUMENT', filename, emptyDocumentReason(content.file_type, front.pages));
  }
  return {
    docId,
    source: file,
    filename: document.filename,
    file_type: document.file_type,
    pages: content.pages.length,
    fingerprint: createHash('sha256').update(bytes).digest('hex'),
    meta: mergeMeta(docId, front.meta, options.meta),
    ...countLevels(chunks),
    parents: chunks.filter((chunk) => chunk.chunk_level !== LEAF_LEVEL),
    leaves,
  };
}
