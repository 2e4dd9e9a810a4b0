import { RagError, type RagErrorCode } from '../../../core/errors';
import type { DocumentPage } from '../../../core/ingest/ingest-io';

/** What a loader gets: the file's bytes, read once by the activity (which also fingerprints them). */
export type LoaderInput = {
  bytes: Uint8Array;
  filename: string;
  /** The activity's cancellation: a loader that runs long work elsewhere (a PDF worker thread) stops it. */
  signal?: AbortSignal;
  /** Called as pages are parsed, so the activity can heartbeat through a long document. */
  onPage?: (pagesDone: number, pagesTotal: number) => void;
};

/** The pages of one file and its type label (the original's `file_type`: "PDF", "Word", "HTML", …). */
export type LoadedContent = { file_type: string; pages: DocumentPage[] };

export type DocumentLoader = (input: LoaderInput) => Promise<LoadedContent>;

/** Loaders by lower-case extension, dot included (".pdf"). */
export type Loaders = Readonly<Record<string, DocumentLoader>>;

/** A terminal file error whose message names the file and the reason. */
export function fileError(code: RagErrorCode, filename: string, reason: string, cause?: unknown): RagError {
  return new RagError(code, `${filename}: ${reason}`, cause === undefined ? undefined : { cause });
}

export function causeText(error: unknown): string {
  return withoutLinks(error instanceof Error ? error.message : String(error));
}

/**
 * A library's message without the parts that send a user to the library's documentation (issue 33 §6: jszip's "If it
 * is, see https://…" under a .docx that is not a zip package); the full error stays the failure's cause.
 */
export function withoutLinks(message: string): string {
  const kept = message
    .split(/(?<=[.?!])\s+/)
    .filter((sentence) => !/https?:\/\//.test(sentence))
    .join(' ')
    .replace(/\s+([?!.,:;])/g, '$1')
    .trim();
  return kept === '' ? message.replace(/\s*https?:\/\/\S+/g, '').trim() : kept;
}

function decodeStrict(bytes: Uint8Array, label: string): string | null {
  try {
    return new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null; // an unknown label (RangeError) or bytes invalid in that encoding (TypeError)
  }
}

/**
 * Bytes to text the way the original reads HTML (`_read_html_text`): a UTF-8 BOM wins, then the declared charset
 * when it decodes cleanly, then UTF-8, and GB18030 (with replacement characters) as the last resort. A UTF-16 BOM
 * is honoured too, for text files saved by Windows editors.
 */
export function decodeText(bytes: Uint8Array, declaredCharset?: string): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  if (declaredCharset) {
    const label = declaredCharset.trim().toLowerCase();
    const declared = decodeStrict(bytes, label === 'utf8' ? 'utf-8' : label);
    if (declared !== null) return declared;
  }
  return decodeStrict(bytes, 'utf-8') ?? new TextDecoder('gb18030').decode(bytes);
}
