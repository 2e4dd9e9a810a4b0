/**
 * The file types ingestion reads, once (issue 45 §3): the loaders are keyed by these extensions
 * (activities/adapters/loaders: the compiler holds the two equal), the CLI walks a folder for them and refuses a file
 * named outright whose type is not one of them before a batch starts, and the ingest activity fails such a file with
 * the same reason.
 */

/** Lower-case extensions, dot included, that a loader reads. */
export const SUPPORTED_EXTENSIONS = ['.md', '.markdown', '.txt', '.html', '.htm', '.pdf', '.docx'] as const;
export type SupportedExtension = (typeof SUPPORTED_EXTENSIONS)[number];

/** Why a type the original accepted is refused here, so the message can say what to do instead. */
const REFUSED: Readonly<Record<string, string>> = {
  '.doc': 'legacy .doc (binary Word) is not supported; save it as .docx',
  '.xls': 'spreadsheets are not supported; export the sheet as .txt or .html',
  '.xlsx': 'spreadsheets are not supported; export the sheet as .txt or .html',
};

/** The lower-case extension of a file name (or path: its last part), dot included ("" when it has none). */
export function extensionOf(filename: string): string {
  const name = filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot).toLowerCase() : '';
}

/**
 * Why a file of this name cannot be read, ending with the supported types; null when its type is one of `supported`
 * (default: every type ingestion reads).
 */
export function unsupportedFileReason(filename: string, supported: readonly string[] = SUPPORTED_EXTENSIONS): string | null {
  const extension = extensionOf(filename);
  if (extension !== '' && supported.includes(extension)) return null;
  const reason = REFUSED[extension] ?? (extension ? `unsupported file type "${extension}"` : 'the file has no extension, so its type is unknown');
  return `${reason}; supported: ${[...supported].sort().join(', ')}`;
}
