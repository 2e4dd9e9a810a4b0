import { docxLoader } from './docx-loader';
import { htmlLoader } from './html-loader';
import { fileError, type DocumentLoader, type Loaders } from './loader';
import { pdfLoader } from './pdf-loader';
import { markdownLoader, textLoader } from './text-loader';

/** The loaders ingestion uses unless told otherwise, by lower-case extension. */
export const DEFAULT_LOADERS: Loaders = {
  '.md': markdownLoader,
  '.markdown': markdownLoader,
  '.txt': textLoader,
  '.html': htmlLoader,
  '.htm': htmlLoader,
  '.pdf': pdfLoader,
  '.docx': docxLoader,
};

/** Why a type the original accepted is refused here, so the message can say what to do instead. */
const REFUSED: Readonly<Record<string, string>> = {
  '.doc': 'legacy .doc (binary Word) is not supported; save it as .docx',
  '.xls': 'spreadsheets are not supported; export the sheet as .txt or .html',
  '.xlsx': 'spreadsheets are not supported; export the sheet as .txt or .html',
};

/** The lower-case extension of a file name, dot included ("" when it has none). */
export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(dot).toLowerCase() : '';
}

/** The loader for a file name, or UNSUPPORTED_FILE naming the file, its type and the supported ones. */
export function loaderFor(filename: string, loaders: Loaders = DEFAULT_LOADERS): DocumentLoader {
  const extension = extensionOf(filename);
  const loader = Object.hasOwn(loaders, extension) ? loaders[extension] : undefined;
  if (loader) return loader;
  const supported = Object.keys(loaders).sort().join(', ');
  const reason = REFUSED[extension] ?? (extension ? `unsupported file type "${extension}"` : 'the file has no extension, so its type is unknown');
  throw fileError('UNSUPPORTED_FILE', filename, `${reason}; supported: ${supported}`);
}

export type { DocumentLoader, LoadedContent, LoaderInput, Loaders } from './loader';
