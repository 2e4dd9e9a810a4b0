import { emptyDocumentReason } from '../../../core/ingest/empty-document';

// Issue 33 §6: an empty .md is empty, not a scan; only a PDF without text is told to get OCR first.
test('the cause of a file with no text to index, by what its loader read', () => {
  expect(emptyDocumentReason('Markdown', [{ page_number: 0, text: ' \n\n' }])).toBe('no text to index: the file is empty');
  expect(emptyDocumentReason('PDF', [{ page_number: 0, text: '' }, { page_number: 1, text: '  ' }])).toBe('no text to index: its pages hold no text (a scanned PDF needs OCR first)');
  expect(emptyDocumentReason('Markdown', [{ page_number: 0, text: '\u200b\u200b' }])).toBe('no text to index: nothing is left after cleaning (spec §6.11: no L3 chunk)');
});
