import { extensionOf, unsupportedFileReason, type SupportedExtension } from '../../../core/ingest/supported-files';
import { docxLoader } from './docx-loader';
import { htmlLoader } from './html-loader';
import { fileError, type DocumentLoader, type Loaders } from './loader';
import { pdfLoader } from './pdf-loader';
import { markdownLoader, textLoader } from './text-loader';

/**
 * The loaders ingestion uses unless told otherwise, by lower-case extension: one for each of core's
 * SUPPORTED_EXTENSIONS, no more and no fewer (`satisfies` holds the two lists equal).
 */
export const DEFAULT_LOADERS: Loaders = {
  '.md': markdownLoader,
  '.markdown': markdownLoader,
  '.txt': textLoader,
  '.html': htmlLoader,
  '.htm': htmlLoader,
  '.pdf': pdfLoader,
  '.docx': docxLoader,
} satisfies Record<SupportedExtension, DocumentLoader>;

export { extensionOf };

/** The loader for a file name, or UNSUPPORTED_FILE naming the file, its type and the supported ones. */
export function loaderFor(filename: string, loaders: Loaders = DEFAULT_LOADERS): DocumentLoader {
  const extension = extensionOf(filename);
  const loader = Object.hasOwn(loaders, extension) ? loaders[extension] : undefined;
  if (loader) return loader;
  // Not null: the extension is no key of `loaders`.
  throw fileError('UNSUPPORTED_FILE', filename, unsupportedFileReason(filename, Object.keys(loaders)) ?? `unsupported file type "${extension}"`);
}

export type { DocumentLoader, LoadedContent, LoaderInput, Loaders } from './loader';
