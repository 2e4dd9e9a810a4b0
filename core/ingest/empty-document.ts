import type { DocumentPage } from './ingest-io';

/*
 * Why a file gave no text to index (issue 33 §6), in words that name its cause: an empty file is empty; only a PDF
 * whose pages hold no text is a scan that needs OCR; text that cleaning removed entirely (zero-width spaces, markup)
 * is said to be so.
 */
export function emptyDocumentReason(fileType: string, pages: readonly DocumentPage[]): string {
  const loaded = pages.map((page) => page.text).join('');
  if (fileType.toLowerCase() === 'pdf' && loaded.trim() === '') {
    return 'no text to index: its pages hold no text (a scanned PDF needs OCR first)';
  }
  if (loaded.trim() === '') return 'no text to index: the file is empty';
  return 'no text to index: nothing is left after cleaning (spec §6.11: no L3 chunk)';
}
